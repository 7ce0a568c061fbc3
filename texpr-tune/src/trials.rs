//! Trials of candidate schedules for the search ([`crate::search`]): each is compiled, run
//! once and compared with the interpreter, then the ones that pass are timed
//! together by the runtime's harness (`Gpu::prepare`, `Gpu::time`): warm,
//! their runs interleaved round-robin, a candidate over [`CUTOFF`] times the
//! best timed no further (its figure still a warm median). The search that
//! decides what to try is the caller's; this only measures.
//!
//! A lost device is reopened: the candidate whose run lost it is marked
//! failed, and the others go on on the new device.
//!
//! A program of more than [`SAMPLE_ABOVE`] operations is checked on a
//! sample of each output ([`SAMPLES`] evenly spaced elements, the last
//! included; `texpr_interp::accuracy::reference_elements`): interpreting a 1024^3 matmul
//! whole takes over a minute, its sample a fraction of a second.

use crate::values::{to_host, to_value};
use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, Instant};
use texpr::{Options, ScheduleChoice};
use texpr_codegen::Module;
use texpr_interp::Value;
use texpr_ir::Diagnostic;
use texpr_ir::Program;
use texpr_runtime::{BufferPool, Gpu, HostBuffer, Prepared, RuntimeError, Timing, TimingPlan};

/// A candidate whose median is over this many times the best one's is timed no further.
pub const CUTOFF: f64 = 4.0;
/// Operations (`texpr_opt::cost::flops`) above which candidates are checked
/// on a sample of their outputs.
const SAMPLE_ABOVE: u64 = 50_000_000;
/// Elements sampled per output.
const SAMPLES: u64 = 2048;

/// What trying one schedule found.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Timed warm (`Timing::cut` when far slower than the best).
    Time(Timing),
    /// It does not compile, the runtime refused it, or it lost the device.
    Failed(String),
    /// Its results differ from the interpreter's.
    Wrong(String),
}

impl Outcome {
    /// The time compared, in milliseconds.
    pub fn ms(&self) -> Option<f64> {
        match self {
            Outcome::Time(t) => Some(t.primary().as_secs_f64() * 1e3),
            _ => None,
        }
    }
}

/// How `texprc tune` reports an outcome: the time (and the wall time where
/// the GPU's timestamps gave the time), or why it is out.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        match self {
            Outcome::Time(t) => {
                write!(f, "{:.3} ms", ms(t.primary()))?;
                if t.gpu().is_some() {
                    write!(f, " (wall {:.3} ms)", ms(t.wall()))?;
                }
                if t.cut {
                    let n = t.samples.len();
                    write!(f, " (warm, {n} run(s): too slow to time further)")?;
                }
                Ok(())
            }
            Outcome::Failed(why) => write!(f, "skipped, failed to compile or run: {why}"),
            Outcome::Wrong(why) => write!(f, "WRONG, differs from the interpreter: {why}"),
        }
    }
}

/// What checking a schedule found: its module, or why it is out.
#[derive(Clone, Debug)]
enum Check {
    Passed(Module),
    Failed(String),
    Wrong(String),
}

/// Everything trials need, and what they have checked (by schedule text).
pub struct Trials<'a> {
    program: &'a Program,
    /// The device, replaced by a new one when it is lost.
    pub gpu: Gpu,
    opts: Options,
    host: Vec<HostBuffer>,
    /// The interpreter's outputs, or their sampled elements, with their bounds.
    expected: Vec<texpr_interp::accuracy::Reference>,
    picks: Option<Vec<Vec<u64>>>,
    plan: TimingPlan,
    checked: BTreeMap<String, Check>,
    /// The program's inputs and outputs on the device, shared by every candidate.
    pool: BufferPool,
    pub failed: usize,
    pub wrong: usize,
    /// How many times the device was lost and reopened.
    pub reopened: usize,
}

impl fmt::Debug for Trials<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trials")
            .field("checked", &self.checked.len())
            .field("failed", &self.failed)
            .field("wrong", &self.wrong)
            .field("reopened", &self.reopened)
            .finish_non_exhaustive()
    }
}

impl<'a> Trials<'a> {
    /// Trials of `program`'s schedules on `gpu`, checked against the
    /// interpreter on random inputs (seed 1); `Err` when the interpreter fails.
    pub fn new(
        program: &'a Program,
        gpu: Gpu,
        opts: Options,
        warmups: usize,
        runs: usize,
    ) -> Result<Self, String> {
        let inputs = texpr_interp::random_inputs(program, 1);
        let picks = picks(program);
        let reference = |q: &Program| match &picks {
            Some(p) => texpr_interp::accuracy::reference_elements(q, &inputs, p),
            None => texpr_interp::accuracy::reference(q, &inputs),
        };
        let failed = |e: texpr_interp::EvalError| format!("evaluation failed: {e}");
        let mut expected = reference(program).map_err(failed)?;
        // A device runs the rounding rewrite: the tolerance it needs
        // (`texpr_interp::accuracy::reference_rewritten`).
        if let Some(q) = texpr_opt::pipeline::rounding_rewrite(program) {
            texpr_interp::accuracy::widen(&mut expected, &reference(&q).map_err(failed)?);
        }
        Ok(Trials {
            program,
            gpu,
            opts,
            host: inputs.iter().map(to_host).collect(),
            expected,
            picks,
            plan: TimingPlan {
                warmups,
                runs,
                cutoff: Some(CUTOFF),
            },
            checked: BTreeMap::new(),
            pool: BufferPool::default(),
            failed: 0,
            wrong: 0,
            reopened: 0,
        })
    }

    /// Elements checked per output when outputs are sampled.
    pub fn sampled(&self) -> Option<usize> {
        self.picks
            .as_ref()
            .map(|p| p.iter().map(Vec::len).max().unwrap_or(0))
    }

    /// Checks each choice and times together those that passed, as
    /// [`Trials::compare`] does without a deadline, but with no cut-off:
    /// every one gets the median of all its runs, as `texprc bench` times
    /// (a cut one's figure is the median of as few as [`CUT_AFTER`] runs,
    /// which one run slowed by the load can set).
    ///
    /// [`CUT_AFTER`]: texpr_runtime::CUT_AFTER
    pub fn compare_uncut(&mut self, choices: &[ScheduleChoice]) -> Vec<Option<Outcome>> {
        let cutoff = self.plan.cutoff.take();
        let out = self.compare(choices, None);
        self.plan.cutoff = cutoff;
        out
    }

    /// Checks each choice in order until `deadline`, then times together
    /// those that passed. One outcome per choice; `None` for those not
    /// tried before the deadline. A choice given twice is tried once.
    pub fn compare(
        &mut self,
        choices: &[ScheduleChoice],
        deadline: Option<Instant>,
    ) -> Vec<Option<Outcome>> {
        let keys: Vec<String> = choices.iter().map(key).collect();
        let mut tried: Vec<String> = Vec::new();
        for (choice, k) in choices.iter().zip(&keys) {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            if !tried.contains(k) {
                self.check(choice, k);
                tried.push(k.clone());
            }
        }
        let timed = self.time_passed(&tried);
        keys.iter()
            .map(|k| {
                let check = self.checked.get(k).filter(|_| tried.contains(k))?;
                Some(match check {
                    Check::Failed(why) => Outcome::Failed(why.clone()),
                    Check::Wrong(why) => Outcome::Wrong(why.clone()),
                    Check::Passed(_) => timed
                        .get(k)
                        .cloned()
                        .unwrap_or_else(|| Outcome::Failed("not timed".into())),
                })
            })
            .collect()
    }

    /// Compiles, runs once and compares with the interpreter (memoized by `key`).
    fn check(&mut self, choice: &ScheduleChoice, key: &str) {
        if self.checked.contains_key(key) {
            return;
        }
        let opts = Options {
            schedule: choice.clone(),
            ..self.opts.clone()
        };
        let check = match texpr::compile(self.program, &opts) {
            Err(d) => Check::Failed(first(&d)),
            Ok(compiled) => match self.gpu.run(&compiled.module, &self.host) {
                Err(e) => Check::Failed(self.runtime_failure(&e)),
                Ok(result) => {
                    let mut got: Vec<Value> = result.outputs.iter().map(to_value).collect();
                    if let Some(picks) = &self.picks {
                        got = pick(&got, picks);
                    }
                    let bad =
                        texpr_interp::accuracy::check_outputs(self.program, &got, &self.expected);
                    match bad.first() {
                        Some(m) => Check::Wrong(m.to_string()),
                        None => Check::Passed(compiled.module),
                    }
                }
            },
        };
        match check {
            Check::Failed(_) => self.failed += 1,
            Check::Wrong(_) => self.wrong += 1,
            Check::Passed(_) => {}
        }
        self.checked.insert(key.to_string(), check);
    }

    /// Times the passed ones among `keys` together, warm and interleaved;
    /// after a device loss, the one whose run lost it is failed and the rest
    /// are timed again on a reopened device.
    fn time_passed(&mut self, keys: &[String]) -> BTreeMap<String, Outcome> {
        let mut left: Vec<String> = keys
            .iter()
            .filter(|k| matches!(self.checked.get(*k), Some(Check::Passed(_))))
            .cloned()
            .collect();
        let mut out = BTreeMap::new();
        while !left.is_empty() {
            let mut prepared: Vec<(String, Prepared)> = Vec::new();
            for k in std::mem::take(&mut left) {
                let Some(Check::Passed(module)) = self.checked.get(&k) else {
                    continue;
                };
                match self.gpu.prepare(module, &self.host, &mut self.pool) {
                    Ok(p) => prepared.push((k, p)),
                    Err(e) => {
                        let why = self.runtime_failure(&e);
                        self.fail(&k, &why, &mut out);
                    }
                }
            }
            let entries: Vec<&Prepared> = prepared.iter().map(|(_, p)| p).collect();
            let timings = self.gpu.time(&entries, &self.plan);
            let lost_in = timings.lost_in;
            for (i, ((k, _), result)) in prepared.iter().zip(timings.results).enumerate() {
                match (result, lost_in) {
                    (Ok(t), _) => {
                        out.insert(k.clone(), Outcome::Time(t));
                    }
                    (Err(e), Some(at)) if at == i => {
                        let why = self.runtime_failure(&e);
                        self.fail(k, &why, &mut out);
                    }
                    (Err(_), Some(_)) => left.push(k.clone()),
                    (Err(e), None) => self.fail(k, &first(&[e.to_diagnostic()]), &mut out),
                }
            }
        }
        out
    }

    /// Records that the passed candidate `key` failed after all.
    fn fail(&mut self, key: &str, why: &str, out: &mut BTreeMap<String, Outcome>) {
        self.failed += 1;
        self.checked
            .insert(key.to_string(), Check::Failed(why.to_string()));
        out.insert(key.to_string(), Outcome::Failed(why.to_string()));
    }

    /// The error's first line; when it lost the device, a new device first
    /// (and a new pool on it), so that the next candidate runs.
    fn runtime_failure(&mut self, e: &RuntimeError) -> String {
        let why = first(&[e.to_diagnostic()]);
        if !self.gpu.is_lost() {
            return why;
        }
        match self.gpu.reopen() {
            Ok(gpu) => {
                self.gpu = gpu;
                self.pool = BufferPool::default();
                self.reopened += 1;
                format!("{why} (the device was reopened)")
            }
            Err(e) => format!("{why} (reopening failed: {})", first(&[e.to_diagnostic()])),
        }
    }
}

/// The memo key of a choice: its schedule's text, or what it names.
fn key(choice: &ScheduleChoice) -> String {
    match choice {
        ScheduleChoice::Given(s) => s.to_string(),
        ScheduleChoice::Tuned(s) => format!("<tuned>\n{s}"),
        ScheduleChoice::Default => "<default>".into(),
        ScheduleChoice::Heuristic => "<heuristic>".into(),
    }
}

fn first(d: &[Diagnostic]) -> String {
    match d.first() {
        Some(d) => format!("{}: {}", d.code, d.message),
        None => "failed".into(),
    }
}

/// The elements to check of each output: all, or [`SAMPLES`] of them.
fn picks(program: &Program) -> Option<Vec<Vec<u64>>> {
    (texpr_opt::cost::flops(program) > SAMPLE_ABOVE).then(|| {
        program
            .outputs
            .iter()
            .map(|o| {
                let n = o.value.ty.len;
                let step = n.div_ceil(SAMPLES).max(1);
                let mut ks: Vec<u64> = (0..n).step_by(step as usize).collect();
                if ks.last() != Some(&(n - 1)) {
                    ks.push(n - 1);
                }
                ks
            })
            .collect()
    })
}

/// The elements `picks` of each value.
fn pick(values: &[Value], picks: &[Vec<u64>]) -> Vec<Value> {
    values
        .iter()
        .zip(picks)
        .map(|(v, ks)| {
            let mut d = texpr_interp::Data::with_capacity(v.elem(), ks.len());
            for &k in ks {
                if let Some(x) = v.data.get(k as usize) {
                    d.push(x).expect("same element type");
                }
            }
            Value::new(d)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use texpr::Schedule;

    const CHAIN: &str = "param N = 4096
input x: f32[N]
output y: f32[N] = compute N |i| (x[i] * 2.0 + 1.0) * x[i] - 3.0";

    fn program() -> Program {
        texpr_syntax::frontend(CHAIN, &[]).unwrap()
    }

    fn coarse(per_thread: u32) -> ScheduleChoice {
        let text = format!("y: coarsen group=64 per_thread={per_thread}\n");
        ScheduleChoice::Given(text.parse::<Schedule>().unwrap())
    }

    /// Trials of `program` on a device of their own (one warm-up, `runs`
    /// runs); `None` without an adapter (a failure with `TEXPR_REQUIRE_GPU=1`).
    fn trials(program: &Program, runs: usize) -> Option<Trials<'_>> {
        if Gpu::list_adapters().is_empty() {
            assert_ne!(std::env::var("TEXPR_REQUIRE_GPU").as_deref(), Ok("1"));
            return None;
        }
        let gpu = Gpu::open_from_env().unwrap();
        let opts = Options {
            target: gpu.target().clone(),
            ..Options::default()
        };
        Some(Trials::new(program, gpu, opts, 1, runs).unwrap())
    }

    /// A lost device costs the candidate whose run lost it, not the ones after:
    /// found while checking, or while preparing to time.
    #[test]
    fn a_lost_device_fails_one_candidate_and_the_rest_run_on_a_new_one() {
        let program = program();
        let Some(mut t) = trials(&program, 3) else {
            return;
        };
        t.gpu.destroy();
        let choices = [ScheduleChoice::Default, coarse(4), coarse(2)];
        let out = t.compare(&choices, None);
        let Some(Outcome::Failed(why)) = &out[0] else {
            panic!("{out:?}");
        };
        assert!(why.starts_with("E0404"), "{why}");
        assert!(why.contains("the device was reopened"), "{why}");
        for o in &out[1..] {
            let Some(Outcome::Time(t)) = o else {
                panic!("{out:?}");
            };
            assert_eq!(t.samples.len(), 3);
        }
        assert_eq!((t.reopened, t.failed, t.wrong), (1, 1, 0));

        // Both checked already: the loss is found preparing the first.
        t.gpu.destroy();
        let out = t.compare(&choices[1..], None);
        assert!(
            matches!(&out[0], Some(Outcome::Failed(w)) if w.starts_with("E0404")),
            "{out:?}"
        );
        assert!(matches!(&out[1], Some(Outcome::Time(_))), "{out:?}");
        assert_eq!((t.reopened, t.failed), (2, 2));
    }

    /// A candidate given twice is tried once, and both get its outcome; a
    /// deadline already past tries nothing.
    #[test]
    fn choices_are_tried_once_and_not_after_the_deadline() {
        let program = program();
        let Some(mut t) = trials(&program, 2) else {
            return;
        };
        let out = t.compare(&[coarse(4), coarse(4)], None);
        let ms: Vec<Option<f64>> = out
            .iter()
            .map(|o| o.as_ref().and_then(Outcome::ms))
            .collect();
        assert!(ms[0].is_some() && ms[0] == ms[1], "{out:?}");
        let out = t.compare(&[coarse(8)], Some(Instant::now()));
        assert!(out[0].is_none(), "{out:?}");
    }
}
