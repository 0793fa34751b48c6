//! `lowered`: what each device holds of a lowered module's arguments and
//! results (sharding-util's [`LoweredReport`](sharding_util::sdy::LoweredReport)),
//! written one entry at a time as the module is read: memory is the
//! module's text and the output, whatever the number of values.

use std::fmt::Write as _;
use std::io::Read;

use sharding_util::ParseError;
use sharding_util::sdy::{LoweredModule, LoweredTotals};

/// The report of the module in `file` (`-`: standard input): its text, or
/// with `json` its JSON object (`"ok": true` first).
pub fn run(file: &str, json: bool) -> Result<String, String> {
    let text = if file == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        text
    } else {
        std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?
    };
    // The report is written as it is built, its head once the device
    // count is known (at the first value, or after a module without any).
    let mut out = String::new();
    let head = |out: &mut String, devices: i64| {
        if json {
            let _ = write!(out, "{{\"ok\":true,\"devices\":{devices},\"entries\":[");
        } else {
            let _ = writeln!(out, "{devices} devices");
        }
    };
    let mut totals: Option<LoweredTotals> = None;
    let mut first = true;
    let module = LoweredModule::read(&text, |module, value| {
        let t = match &mut totals {
            Some(t) => t,
            None => {
                let t = totals.insert(LoweredTotals::new(module)?);
                head(&mut out, t.devices);
                t
            }
        };
        let entry = t.entry(module, &value)?;
        if json {
            if !first {
                out.push(',');
            }
            let object = serde_json::to_string(&entry)
                .map_err(|e| ParseError::new(e.to_string(), 0, String::new()))?;
            out.push_str(&object);
        } else {
            // Writing to a String cannot fail.
            let _ = write!(out, "{entry}");
        }
        first = false;
        Ok(())
    })
    .map_err(|e| e.to_string())?;
    drop(text);
    let totals = match totals {
        Some(t) => t,
        None => {
            let t = LoweredTotals::new(&module).map_err(|e| e.to_string())?;
            head(&mut out, t.devices);
            t
        }
    };
    if json {
        let list = |bytes: &[i64]| serde_json::to_string(bytes).unwrap_or_default();
        let _ = write!(
            out,
            "],\"argument_bytes\":{},\"result_bytes\":{}}}",
            list(&totals.argument_bytes),
            list(&totals.result_bytes)
        );
    } else {
        let _ = write!(out, "{totals}");
    }
    Ok(out)
}
