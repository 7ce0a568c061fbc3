//! Printing round trips: a program prints as text that checks back to it
//! (up to `canonicalize`), before scheduling and after each of the default
//! and the heuristic schedules.

use texpr::{Options, ScheduleChoice, compile};
use texpr_ir::Program;
use texpr_syntax::check::canonicalize;
use texpr_syntax::frontend;

/// Panics (naming `name` and the text) unless `p` and its programs
/// scheduled by `opts` with each of the default and heuristic schedules
/// print back to themselves.
pub fn assert_prints_back(name: &str, p: &Program, opts: &Options) {
    let back = |q: &Program| {
        let text = texpr_ir::print::program(q);
        let again = frontend(&text, &[]).unwrap_or_else(|d| panic!("{name}: {d:?}\n{text}"));
        assert_eq!(canonicalize(&again), canonicalize(q), "{name}:\n{text}");
    };
    back(p);
    for choice in [ScheduleChoice::Default, ScheduleChoice::Heuristic] {
        let opts = Options {
            schedule: choice,
            ..opts.clone()
        };
        let c = compile(p, &opts).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        back(&c.scheduled);
    }
}
