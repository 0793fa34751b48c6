//! Whether a heap trace's events come in an order the heap simulator can
//! write: in each trace, a buffer is allocated once (ALLOC, or SHARE_WITH
//! the storage of a buffer allocated before it) before it is freed, and
//! freed once.

use super::AssignmentError;
use super::heap::{Event, index};

/// Where a buffer stands in the trace being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Not allocated yet.
    Unborn,
    /// Allocated (or sharing) since this event.
    Live(usize),
    /// Freed at this event.
    Freed(usize),
}

/// Checks every trace's events (`events`, trace after trace, `lengths`
/// events each; buffers numbered `0..buffers`); `id` gives a buffer's id
/// for the error.
///
/// # Errors
///
/// [`AssignmentError::EventOrder`] at the first event out of order, naming
/// it `heap_simulator_traces[T].events[E]`.
pub(super) fn check_trace_order(
    events: &[Event],
    lengths: &[usize],
    buffers: usize,
    id: impl Fn(usize) -> i64,
) -> Result<(), AssignmentError> {
    let mut state = vec![State::Unborn; buffers];
    let mut touched: Vec<usize> = Vec::new();
    let mut rest = events;
    for (t, &length) in lengths.iter().enumerate() {
        let (trace, after) = rest.split_at(length.min(rest.len()));
        rest = after;
        for &b in &touched {
            if let Some(s) = state.get_mut(b) {
                *s = State::Unborn;
            }
        }
        touched.clear();
        for (e, &event) in trace.iter().enumerate() {
            check_event(&mut state, &mut touched, event, e, &id).map_err(|message| {
                AssignmentError::EventOrder {
                    field: format!("heap_simulator_traces[{t}].events[{e}]"),
                    message,
                }
            })?;
        }
    }
    Ok(())
}

/// Checks event `e` of a trace against the states of its buffers, and
/// moves them on; the error says what is out of order.
fn check_event(
    state: &mut [State],
    touched: &mut Vec<usize>,
    event: Event,
    e: usize,
    id: impl Fn(usize) -> i64,
) -> Result<(), String> {
    let at = |b: usize| state.get(b).copied().unwrap_or(State::Unborn);
    let born = |b: usize, kind: &str| match at(b) {
        State::Unborn => Ok((b, State::Live(e))),
        State::Live(first) | State::Freed(first) => Err(format!(
            "{kind} of buffer {}, already allocated at event {first} of its trace",
            id(b)
        )),
    };
    let (b, next) = match event {
        Event::Alloc(b) => born(index(b), "ALLOC")?,
        Event::ShareWith(b, canonical) => {
            let (b, canonical) = (index(b), index(canonical));
            // The canonical buffer may be freed just before, at the
            // instruction that reuses it.
            if at(canonical) == State::Unborn {
                return Err(format!(
                    "buffer {} shares with buffer {}, never allocated before",
                    id(b),
                    id(canonical)
                ));
            }
            born(b, "SHARE_WITH")?
        }
        Event::Free(b) => {
            let b = index(b);
            match at(b) {
                State::Live(_) => (b, State::Freed(e)),
                State::Unborn => return Err(format!("FREE of buffer {}, never allocated", id(b))),
                State::Freed(first) => {
                    return Err(format!(
                        "FREE of buffer {}, already freed at event {first}",
                        id(b)
                    ));
                }
            }
        }
    };
    if let Some(s) = state.get_mut(b) {
        *s = next;
        touched.push(b);
    }
    Ok(())
}
