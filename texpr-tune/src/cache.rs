//! The schedule cache: the best measured schedule per (program, device),
//! and each device's target (its limits, features and profile), written by
//! `texprc tune`, read by `compile`, `run` and `bench`: `compile --device
//! NAME` compiles with the device's own target, on a machine without it.
//!
//! Location: `$TEXPR_CACHE` if set, else `$XDG_CACHE_HOME/texpr/schedules.txt`,
//! else `$HOME/.cache/texpr/schedules.txt`.
//!
//! The file is plain text, one record per (program, device), sorted by key:
//! ```text
//! # texpr schedule cache, written by `texprc tune`
//! [program=3f1c0a9b2e7d4c11 device=llvmpipe (LLVM 15.0.7, 256 bits) (Vulkan)]
//! c: tile group=8x8 reg=4x4
//! # median_ms=1.234
//! [target device=llvmpipe (LLVM 15.0.7, 256 bits) (Vulkan)]
//! name = llvmpipe (LLVM 15.0.7, 256 bits)
//! kind = cpu
//! ...
//! ```
//! `program` is the FNV-1a 64 hash of the checked program's printed text
//! (params applied), so the same source at other sizes is another program.
//! A record that does not parse is skipped with a warning (kept in
//! [`Cache::warnings`] for the caller to show: the library prints nothing);
//! nothing in the file can make a command fail. Writes go to a temporary file that is then
//! renamed over the cache, so a reader never sees half a file.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use texpr::{Schedule, Target};
use texpr_ir::Program;
use texpr_runtime::{Gpu, GpuInfo};

/// What a cached schedule is for.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CacheKey {
    /// A stable hash of the checked program's printed text (params applied).
    pub program: String,
    /// The adapter's name and backend.
    pub device: String,
}

/// One record: the schedule and its measured median time.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub schedule: Schedule,
    pub median_ms: f64,
}

/// The cache file, as read.
#[derive(Clone, Debug, Default)]
pub struct Cache {
    /// Where it lives (`None`: no location could be found; nothing is stored).
    path: Option<PathBuf>,
    entries: BTreeMap<CacheKey, Entry>,
    /// Each device's target, by the device's name as the keys give it.
    targets: BTreeMap<String, Target>,
    /// What was wrong with the file as read: skipped records, an unreadable
    /// file. Each is one line, for the caller to show.
    warnings: Vec<String>,
}

/// The key of `program` on `gpu`.
pub fn key(program: &Program, gpu: &Gpu) -> CacheKey {
    key_for(program, gpu.info())
}

/// The key of `program` on the adapter `info` describes.
pub fn key_for(program: &Program, info: &GpuInfo) -> CacheKey {
    CacheKey {
        program: program_hash(program),
        device: device_name(info),
    }
}

/// How a device is named in the cache: adapter name and backend.
pub fn device_name(info: &GpuInfo) -> String {
    one_line(&format!("{} ({})", info.name, info.backend))
}

/// The FNV-1a 64 hash of the program's printed text, as 16 hex digits.
pub fn program_hash(program: &Program) -> String {
    format!(
        "{:016x}",
        fnv1a(texpr_ir::print::program(program).as_bytes())
    )
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

/// The default location, if the environment names one.
pub fn default_path() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(p) = var("TEXPR_CACHE") {
        return Some(PathBuf::from(p));
    }
    if let Some(x) = var("XDG_CACHE_HOME").map(PathBuf::from)
        && x.is_absolute()
    {
        return Some(x.join("texpr").join("schedules.txt"));
    }
    var("HOME").map(|h| {
        PathBuf::from(h)
            .join(".cache")
            .join("texpr")
            .join("schedules.txt")
    })
}

impl Cache {
    /// The cache at `$TEXPR_CACHE`, else the default location. A file that
    /// cannot be read gives an empty cache and a warning ([`Cache::warnings`]).
    pub fn open_default() -> Cache {
        let Some(path) = default_path() else {
            return Cache::default();
        };
        match Cache::open(&path) {
            Ok(c) => c,
            Err(e) => {
                let why = format!(
                    "cannot read the schedule cache `{}`: {e}; ignoring it",
                    path.display()
                );
                Cache {
                    path: Some(path),
                    warnings: vec![why],
                    ..Cache::default()
                }
            }
        }
    }

    /// The cache at `path` (empty when the file does not exist yet).
    /// Records that do not parse are skipped with a warning.
    pub fn open(path: &Path) -> Result<Cache, io::Error> {
        let (entries, targets, warnings) = match std::fs::read(path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => parse(&text, &path.display().to_string()),
                Err(_) => {
                    let why = format!(
                        "the schedule cache `{}` is not UTF-8 text; ignoring it",
                        path.display()
                    );
                    (BTreeMap::new(), BTreeMap::new(), vec![why])
                }
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => Default::default(),
            Err(e) => return Err(e),
        };
        Ok(Cache {
            path: Some(path.to_path_buf()),
            entries,
            targets,
            warnings,
        })
    }

    /// What was wrong with the file as read, one line each (empty when
    /// nothing was): the caller decides how to show them.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Where the cache lives, if anywhere.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The tuned schedule for `key`, if any.
    #[allow(dead_code)] // for `bench`
    pub fn get(&self, key: &CacheKey) -> Option<Schedule> {
        self.entries.get(key).map(|e| e.schedule.clone())
    }

    /// The record for `key`, if any.
    pub fn entry(&self, key: &CacheKey) -> Option<&Entry> {
        self.entries.get(key)
    }

    /// The records of `program` (a hash) whose device name contains
    /// `device` (ignoring case), sorted by device.
    pub fn find(&self, program: &str, device: &str) -> Vec<(&CacheKey, &Entry)> {
        let want = device.to_lowercase();
        self.entries
            .iter()
            .filter(|(k, _)| k.program == program && k.device.to_lowercase().contains(&want))
            .collect()
    }

    /// The devices whose name contains `device` (ignoring case) with the
    /// target stored for each, sorted by name.
    pub fn find_targets(&self, device: &str) -> Vec<(&String, &Target)> {
        let want = device.to_lowercase();
        self.targets
            .iter()
            .filter(|(d, _)| d.to_lowercase().contains(&want))
            .collect()
    }

    /// Stores `schedule` for `key`, and `target` for its device, and
    /// rewrites the file (records other processes added since it was read
    /// are kept).
    pub fn put(
        &mut self,
        key: CacheKey,
        schedule: Schedule,
        median_ms: f64,
        target: Target,
    ) -> io::Result<()> {
        let Some(path) = self.path.clone() else {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "no cache location: set $TEXPR_CACHE, $XDG_CACHE_HOME or $HOME",
            ));
        };
        if let Ok(fresh) = Cache::open(&path) {
            for (k, e) in fresh.entries {
                self.entries.entry(k).or_insert(e);
            }
            for (d, t) in fresh.targets {
                self.targets.entry(d).or_insert(t);
            }
        }
        let key = CacheKey {
            program: one_line(&key.program),
            device: one_line(&key.device),
        };
        self.targets.insert(key.device.clone(), target);
        self.entries.insert(
            key,
            Entry {
                schedule,
                median_ms,
            },
        );
        write_atomically(&path, &render(&self.entries, &self.targets))
    }
}

const HEADER: &str = "# texpr schedule cache, written by `texprc tune`: one record per program \
                      (FNV-1a 64 of its checked text) and device\n";

fn render(entries: &BTreeMap<CacheKey, Entry>, targets: &BTreeMap<String, Target>) -> String {
    let mut out = String::from(HEADER);
    for (k, e) in entries {
        out.push_str(&format!("[program={} device={}]\n", k.program, k.device));
        out.push_str(&e.schedule.to_string());
        out.push_str(&format!("# median_ms={:.6}\n", e.median_ms));
    }
    for (device, t) in targets {
        out.push_str(&format!("[target device={device}]\n{t}"));
    }
    out
}

/// What a record's header names.
enum Header {
    Schedule(CacheKey),
    Target(String),
}

type Records = (
    BTreeMap<CacheKey, Entry>,
    BTreeMap<String, Target>,
    Vec<String>,
);

/// Parses the records of a cache file; skips bad ones, with a warning each.
fn parse(text: &str, file: &str) -> Records {
    let (mut out, mut targets) = (BTreeMap::new(), BTreeMap::new());
    let warnings = std::cell::RefCell::new(Vec::new());
    // (header line number, header, body lines)
    let mut records: Vec<(usize, Option<Header>, String)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            records.push((i + 1, parse_header(t), String::new()));
        } else if let Some((_, _, body)) = records.last_mut() {
            body.push_str(line);
            body.push('\n');
        } else if !t.is_empty() && !t.starts_with('#') {
            warnings.borrow_mut().push(format!(
                "schedule cache `{file}` line {}: text before the first record; ignoring it",
                i + 1
            ));
        }
    }
    let skip = |line: usize, why: &str| {
        warnings.borrow_mut().push(format!(
            "schedule cache `{file}` line {line}: {why}; ignoring the record"
        ))
    };
    for (line, header, body) in records {
        let key = match header {
            Some(Header::Schedule(key)) => key,
            Some(Header::Target(device)) => {
                match Target::parse(&body) {
                    Ok(t) => {
                        targets.insert(device, t);
                    }
                    Err(e) => skip(line + e.line, &format!("{}: {}", e.code, e.message)),
                }
                continue;
            }
            None => {
                skip(
                    line,
                    "expected `[program=HASH device=NAME]` or `[target device=NAME]`",
                );
                continue;
            }
        };
        let median_ms = body
            .lines()
            .rev()
            .filter_map(|l| l.trim().strip_prefix("# median_ms="))
            .find_map(|v| v.trim().parse::<f64>().ok())
            .unwrap_or(f64::NAN);
        match body.parse::<Schedule>() {
            Ok(schedule) => {
                out.insert(
                    key,
                    Entry {
                        schedule,
                        median_ms,
                    },
                );
            }
            Err(e) => skip(line + e.line, &e.message),
        }
    }
    (out, targets, warnings.into_inner())
}

fn parse_header(line: &str) -> Option<Header> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    if let Some(device) = inner.trim_start().strip_prefix("target device=") {
        let device = device.trim();
        return (!device.is_empty()).then(|| Header::Target(device.to_string()));
    }
    let rest = inner.trim_start().strip_prefix("program=")?;
    let (program, rest) = rest.split_once(' ')?;
    let device = rest.trim_start().strip_prefix("device=")?.trim();
    if program.is_empty() || device.is_empty() {
        return None;
    }
    Some(Header::Schedule(CacheKey {
        program: program.to_string(),
        device: device.to_string(),
    }))
}

fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("texprc-cache-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("sub").join("schedules.txt")
    }

    fn key(p: &str, d: &str) -> CacheKey {
        CacheKey {
            program: p.into(),
            device: d.into(),
        }
    }

    #[test]
    fn fnv1a_matches_the_reference_values() {
        assert_eq!(fnv1a(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn put_then_open_round_trips_sorted() {
        let path = scratch("round");
        let mut c = Cache::open(&path).expect("a missing file is an empty cache");
        let s1: Schedule = "c: tile group=8x8 reg=4x4\ny: rows group=64\n"
            .parse()
            .unwrap();
        let s2: Schedule = "t: multipass parts=64 group=64\n".parse().unwrap();
        let nvidia = Target::builtin("nvidia").unwrap();
        let cpu = Target::builtin("llvmpipe").unwrap();
        c.put(
            key("bbbb", "gpu [x] (Vulkan)"),
            s1.clone(),
            1.5,
            nvidia.clone(),
        )
        .unwrap();
        c.put(key("aaaa", "cpu (Vulkan)"), s2.clone(), 0.25, cpu.clone())
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.find("program=aaaa").unwrap() < text.find("program=bbbb").unwrap(),
            "{text}"
        );
        let d = Cache::open(&path).unwrap();
        assert_eq!(d.get(&key("bbbb", "gpu [x] (Vulkan)")), Some(s1));
        assert_eq!(
            d.entry(&key("aaaa", "cpu (Vulkan)")).unwrap().median_ms,
            0.25
        );
        assert_eq!(d.get(&key("aaaa", "cpu (Vulkan)")), Some(s2));
        assert_eq!(d.find("bbbb", "GPU").len(), 1);
        assert!(d.find("bbbb", "cpu").is_empty());
        // Each device's target is stored beside its schedules.
        assert_eq!(
            d.find_targets("gpu"),
            [(&"gpu [x] (Vulkan)".to_string(), &nvidia)]
        );
        assert_eq!(d.find_targets("CPU"), [(&"cpu (Vulkan)".to_string(), &cpu)]);
        assert_eq!(d.find_targets("vulkan").len(), 2);
        // Deterministic: writing again gives the same bytes.
        let mut e = d.clone();
        e.put(
            key("aaaa", "cpu (Vulkan)"),
            d.get(&key("aaaa", "cpu (Vulkan)")).unwrap(),
            0.25,
            cpu,
        )
        .unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn bad_records_are_skipped_not_fatal() {
        let path = scratch("bad");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            "junk\n[program=aa device=x]\nc: tiles\n[nonsense\n[program=bb device=y]\nc: rows group=4\n# median_ms=2\n[target device=y]\nkind = toaster\n[target device=z]\nname = z\n",
        )
        .unwrap();
        let c = Cache::open(&path).unwrap();
        assert_eq!(c.entries.len(), 1);
        assert_eq!(c.entry(&key("bb", "y")).unwrap().median_ms, 2.0);
        // A target that does not parse is skipped; a good one is kept.
        assert!(c.find_targets("y").is_empty());
        assert_eq!(c.find_targets("z")[0].1.name, "z");
        // Each skipped piece is one warning naming its offending line, in order.
        let lines: Vec<&str> = c
            .warnings()
            .iter()
            .map(|w| w.split(" line ").nth(1).unwrap().split(':').next().unwrap())
            .collect();
        assert_eq!(lines, ["1", "3", "4", "9"], "{:?}", c.warnings());
        std::fs::write(&path, [0xff, 0xfe, 0x00]).unwrap();
        let c = Cache::open(&path).unwrap();
        assert!(c.entries.is_empty());
        assert!(c.warnings()[0].contains("not UTF-8"), "{:?}", c.warnings());
    }
}
