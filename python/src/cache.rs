//! The compile cache on disk: a compiled module (its WGSL and kernel plan)
//! and its schedule, kept in one file per key, so that a program compiled
//! once, by any process, is not compiled again (Triton's cache directory
//! is the model).
//!
//! The key is the program's source, its defines, the target description,
//! the schedule asked for (the default, the heuristic's, a given or a tuned
//! schedule's text) and the compiler: the package's version and the
//! extension module's file (its size and modification time), so a rebuilt
//! texpr never reads what another build wrote. A file holds its whole key,
//! which a read compares: a hash that collides is a miss, not a wrong module.
//!
//! Where: `$TEXPR_CACHE_DIR`, else `$XDG_CACHE_HOME/texpr/modules`, else
//! `~/.cache/texpr/modules`; `TEXPR_MODULE_CACHE=0` neither reads nor
//! writes it. A file that cannot be read or parsed is a miss; one that
//! cannot be written is skipped (the cache never fails a compile). Writes go
//! to a temporary file renamed into place, so processes compiling at once
//! never read half a file.
//!
//! A module read from the cache has no kernel IR (`Module::kir`, which
//! `texprc compile --emit kir` prints and nothing that runs a module reads).

use serde_json::{Value as Json, json};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use texpr::{Schedule, ScheduleChoice, Target};
use texpr_codegen::plan::{
    Access, Binding, BufferId, BufferPlan, BufferRole, Kernel, LoopPlan, Module, StepBuffer,
};
use texpr_ir::ElemTy;
use texpr_ir::Span;

/// Programs compiled in this process (`texpr.stats()["compiles"]`).
pub static COMPILES: AtomicU64 = AtomicU64::new(0);
/// Modules read from the disk cache instead (`texpr.stats()["cache_hits"]`).
pub static HITS: AtomicU64 = AtomicU64::new(0);

/// Format of a cache file; a change makes older files misses.
const FORMAT: &str = "texpr module cache 1";

/// What a compile gives a kernel: the module and the schedule it was compiled with.
#[derive(Debug)]
pub struct Compiled {
    pub module: Module,
    pub schedule: Schedule,
}

/// What a module's compile depends on.
#[derive(Debug)]
pub struct Key {
    text: String,
}

impl Key {
    /// The key of `source` compiled with `defines` for `target` with `schedule`;
    /// `compiler` identifies the compiler's build.
    pub fn new(
        source: &str,
        defines: &[(String, i64)],
        target: &Target,
        schedule: &ScheduleChoice,
        compiler: &str,
    ) -> Key {
        let mut defines = defines.to_vec();
        defines.sort();
        let defines: Vec<String> = defines.iter().map(|(n, v)| format!("{n}={v}")).collect();
        let schedule = match schedule {
            ScheduleChoice::Default => "default".to_string(),
            ScheduleChoice::Heuristic => "heuristic".to_string(),
            ScheduleChoice::Given(s) => format!("given\n{s}"),
            ScheduleChoice::Tuned(s) => format!("tuned\n{s}"),
        };
        Key {
            text: format!(
                "{FORMAT}\ncompiler: {compiler}\ndefines: {}\nschedule: {schedule}\ntarget:\n{target}\nsource:\n{source}",
                defines.join(" ")
            ),
        }
    }

    fn file(&self, dir: &std::path::Path) -> PathBuf {
        let mut h = DefaultHasher::new();
        self.text.hash(&mut h);
        dir.join(format!("{:016x}.json", h.finish()))
    }
}

/// The cache's directory, or `None` when it is off (or no location is known).
pub fn dir() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if var("TEXPR_MODULE_CACHE").is_some_and(|v| v == "0") {
        return None;
    }
    if let Some(d) = var("TEXPR_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    let base = var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("texpr").join("modules"))
}

/// The compiler's identity: the package's version and the extension's file
/// (`path` as Python loaded it), by size and modification time; `None`
/// when the file cannot be read (then nothing is cached).
pub fn compiler(path: Option<&str>) -> Option<String> {
    static ID: OnceLock<Option<String>> = OnceLock::new();
    ID.get_or_init(|| {
        let meta = std::fs::metadata(path?).ok()?;
        let mtime = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        Some(format!(
            "{} {} bytes, modified {}.{:09}",
            env!("CARGO_PKG_VERSION"),
            meta.len(),
            mtime.as_secs(),
            mtime.subsec_nanos()
        ))
    })
    .clone()
}

/// The module cached under `key`, if any.
pub fn read(key: &Key) -> Option<Compiled> {
    let text = std::fs::read_to_string(key.file(&dir()?)).ok()?;
    let v: Json = serde_json::from_str(&text).ok()?;
    if v.get("key")?.as_str()? != key.text {
        return None;
    }
    let schedule = v.get("schedule")?.as_str()?.parse::<Schedule>().ok()?;
    let module = module_from(v.get("module")?)?;
    HITS.fetch_add(1, Ordering::Relaxed);
    Some(Compiled { module, schedule })
}

/// Keeps `c` under `key` (silently not, where the directory cannot be written).
pub fn write(key: &Key, c: &Compiled) {
    let Some(dir) = dir() else { return };
    let v = json!({
        "key": key.text,
        "schedule": c.schedule.to_string(),
        "module": module_json(&c.module),
    });
    let file = key.file(&dir);
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        file.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("module"),
        std::process::id()
    ));
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&tmp, v.to_string()))
        .and_then(|()| std::fs::rename(&tmp, &file));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

// --- a module as JSON, and back ------------------------------------------------

fn module_json(m: &Module) -> Json {
    // Every field named, so that a field added to `Module` fails to compile here.
    let Module {
        wgsl,
        enables,
        uses,
        buffers,
        kernels,
        loops,
        kir: _,
    } = m;
    let ext = |e: &[texpr_target::Extension]| -> Vec<&str> { e.iter().map(|x| x.name()).collect() };
    json!({
        "wgsl": wgsl,
        "enables": ext(enables),
        "uses": ext(uses),
        "buffers": buffers.iter().map(buffer_json).collect::<Vec<_>>(),
        "kernels": kernels.iter().map(kernel_json).collect::<Vec<_>>(),
        "loops": loops.iter().map(loop_json).collect::<Vec<_>>(),
    })
}

fn module_from(v: &Json) -> Option<Module> {
    let ext = |v: &Json| -> Option<Vec<texpr_target::Extension>> {
        (v.as_array()?.iter())
            .map(|n| {
                let n = n.as_str()?;
                texpr_target::Extension::ALL
                    .into_iter()
                    .find(|e| e.name() == n)
            })
            .collect()
    };
    let list = |v: &Json| -> Option<Vec<Json>> { v.as_array().cloned() };
    Some(Module {
        wgsl: v.get("wgsl")?.as_str()?.to_string(),
        enables: ext(v.get("enables")?)?,
        uses: ext(v.get("uses")?)?,
        buffers: (list(v.get("buffers")?)?.iter())
            .map(buffer_from)
            .collect::<Option<_>>()?,
        kernels: (list(v.get("kernels")?)?.iter())
            .map(kernel_from)
            .collect::<Option<_>>()?,
        loops: (list(v.get("loops")?)?.iter())
            .map(loop_from)
            .collect::<Option<_>>()?,
        kir: Vec::new(),
    })
}

fn role_json(r: BufferRole) -> Json {
    match r {
        BufferRole::Input(i) => json!(["input", i]),
        BufferRole::Output(i) => json!(["output", i]),
        BufferRole::Global(i) => json!(["global", i]),
        BufferRole::Scratch => json!(["scratch"]),
        BufferRole::Constant => json!(["constant"]),
        BufferRole::State(i) => json!(["state", i]),
        BufferRole::Step(i) => json!(["step", i]),
    }
}

fn role_from(v: &Json) -> Option<BufferRole> {
    let a = v.as_array()?;
    let i = || -> Option<u32> { u32::try_from(a.get(1)?.as_u64()?).ok() };
    Some(match a.first()?.as_str()? {
        "input" => BufferRole::Input(i()?),
        "output" => BufferRole::Output(i()?),
        "global" => BufferRole::Global(i()?),
        "scratch" => BufferRole::Scratch,
        "constant" => BufferRole::Constant,
        "state" => BufferRole::State(i()?),
        "step" => BufferRole::Step(i()?),
        _ => return None,
    })
}

fn buffer_json(b: &BufferPlan) -> Json {
    let BufferPlan {
        name,
        role,
        elem,
        len,
        init,
    } = b;
    json!({"name": name, "role": role_json(*role), "elem": elem.name(), "len": len, "init": init})
}

fn buffer_from(v: &Json) -> Option<BufferPlan> {
    Some(BufferPlan {
        name: v.get("name")?.as_str()?.to_string(),
        role: role_from(v.get("role")?)?,
        elem: ElemTy::from_name(v.get("elem")?.as_str()?)?,
        len: v.get("len")?.as_u64()?,
        init: u32s(v.get("init")?)?,
    })
}

fn kernel_json(k: &Kernel) -> Json {
    let Kernel {
        entry_point,
        workgroup_size,
        dispatch,
        bindings,
        workgroup_storage_bytes,
        span,
    } = k;
    json!({
        "entry_point": entry_point,
        "workgroup_size": workgroup_size,
        "dispatch": dispatch,
        "bindings": bindings.iter().map(binding_json).collect::<Vec<_>>(),
        "workgroup_storage_bytes": workgroup_storage_bytes,
        "span": [span.start, span.end],
    })
}

fn kernel_from(v: &Json) -> Option<Kernel> {
    let span = u32s(v.get("span")?)?;
    Some(Kernel {
        entry_point: v.get("entry_point")?.as_str()?.to_string(),
        workgroup_size: u32s(v.get("workgroup_size")?)?.try_into().ok()?,
        dispatch: u32s(v.get("dispatch")?)?.try_into().ok()?,
        bindings: (v.get("bindings")?.as_array()?.iter())
            .map(binding_from)
            .collect::<Option<_>>()?,
        workgroup_storage_bytes: v.get("workgroup_storage_bytes")?.as_u64()?,
        span: Span {
            start: *span.first()?,
            end: *span.get(1)?,
        },
    })
}

fn binding_json(b: &Binding) -> Json {
    let Binding {
        group,
        binding,
        buffer,
        access,
        step,
    } = b;
    json!({
        "group": group,
        "binding": binding,
        "buffer": buffer.0,
        "read_write": *access == Access::ReadWrite,
        "step": step.as_ref().map(step_json),
    })
}

fn binding_from(v: &Json) -> Option<Binding> {
    Some(Binding {
        group: u32_of(v.get("group")?)?,
        binding: u32_of(v.get("binding")?)?,
        buffer: BufferId(u32_of(v.get("buffer")?)?),
        access: match v.get("read_write")?.as_bool()? {
            true => Access::ReadWrite,
            false => Access::Read,
        },
        step: opt(v.get("step")?, step_from)?,
    })
}

fn step_json(s: &StepBuffer) -> Json {
    let StepBuffer {
        loop_id,
        next,
        init,
        a,
        b,
        init_from,
    } = s;
    json!({
        "loop_id": loop_id,
        "next": next,
        "init": init.0,
        "a": a.0,
        "b": b.0,
        "init_from": init_from.map(|(l, x, y)| [l, x.0, y.0]),
    })
}

fn step_from(v: &Json) -> Option<StepBuffer> {
    let id = |k: &str| -> Option<BufferId> { Some(BufferId(u32_of(v.get(k)?)?)) };
    Some(StepBuffer {
        loop_id: u32_of(v.get("loop_id")?)?,
        next: v.get("next")?.as_bool()?,
        init: id("init")?,
        a: id("a")?,
        b: id("b")?,
        init_from: opt(v.get("init_from")?, |t| {
            let t = u32s(t)?;
            Some((*t.first()?, BufferId(*t.get(1)?), BufferId(*t.get(2)?)))
        })?,
    })
}

fn loop_json(l: &LoopPlan) -> Json {
    let LoopPlan {
        count,
        kernels,
        within,
        step,
    } = l;
    json!({
        "count": count,
        "kernels": [kernels.start, kernels.end],
        "within": within,
        "step": step.as_ref().map(step_json),
    })
}

fn loop_from(v: &Json) -> Option<LoopPlan> {
    let k = v.get("kernels")?.as_array()?;
    let at = |i: usize| -> Option<usize> { usize::try_from(k.get(i)?.as_u64()?).ok() };
    Some(LoopPlan {
        count: v.get("count")?.as_u64()?,
        kernels: at(0)?..at(1)?,
        within: opt(v.get("within")?, u32_of)?,
        step: opt(v.get("step")?, step_from)?,
    })
}

fn u32_of(v: &Json) -> Option<u32> {
    u32::try_from(v.as_u64()?).ok()
}

fn u32s(v: &Json) -> Option<Vec<u32>> {
    v.as_array()?.iter().map(u32_of).collect()
}

/// `null` as `Some(None)`, else `f`'s reading (`None` when it fails).
fn opt<T>(v: &Json, f: impl FnOnce(&Json) -> Option<T>) -> Option<Option<T>> {
    match v {
        Json::Null => Some(None),
        v => f(v).map(Some),
    }
}
