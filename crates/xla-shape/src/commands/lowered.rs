//! `lowered`: what each device holds of a lowered module's arguments and
//! results (sharding-util's [`LoweredReport`]).

use std::io::Read;

use sharding_util::sdy::{LoweredModule, LoweredReport};

use super::{Outcome, reported};

/// The report of the module in `file` (`-`: standard input).
pub fn run(file: &str) -> Outcome {
    let text = if file == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        text
    } else {
        std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?
    };
    let module = LoweredModule::parse(&text).map_err(|e| e.to_string())?;
    reported(&LoweredReport::new(&module).map_err(|e| e.to_string())?)
}
