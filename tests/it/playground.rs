//! The playground (playground/, docs/npm.md) in headless Chromium, driven
//! as a user would through the DevTools Protocol: it loads with the
//! examples the `webgpu` target cannot compile marked, runs two examples
//! (each Run: random inputs, the WebGPU run, the comparison with the
//! interpreter in its worker) while the main thread keeps ticking, gives
//! an output as a `.npy` that npyz reads, runs on an input uploaded as a
//! `.npy` that npyz wrote, shows live diagnostics for a mistake typed into
//! the editor (and no stale verdict), cancels a long Run, and restores a
//! program shared by URL after a reload. A screenshot after the uploaded
//! run (its plot) is saved at `target/tmp/playground.png` (printed).
//!
//! Skipped loudly without Chromium or without what building the npm
//! package needs; under TEXPR_REQUIRE_GPU=1 either is a failure.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use texpr_tests::browser::{self, DevTools, Page, Site, WINDOW};
use texpr_tests::npm;

/// The examples the test runs.
const EXAMPLES: [&str; 2] = ["softmax", "matmul"];

/// Loads `name` through the page's example menu, presses Run and waits for
/// the outcome: the run's outcome and what the page then shows.
fn run_example(tools: &mut DevTools, name: &str, deadline: Instant) -> Json {
    let script = format!(
        r#"(async () => {{
            const menu = document.getElementById("example");
            menu.value = {name:?};
            menu.dispatchEvent(new Event("change"));
            await window.playground.idle();
            document.getElementById("run").click();
            // The main thread's ticks while the Run works.
            let done = false;
            const waiting = window.playground.idle().then((o) => {{ done = true; return o; }});
            let ticks = 0, longest = 0, last = performance.now();
            while (!done) {{
                await new Promise((r) => setTimeout(r, 0));
                const now = performance.now();
                longest = Math.max(longest, now - last);
                last = now;
                ticks += 1;
            }}
            const outcome = await waiting;
            const npy = document.querySelector('#run-result a.download');
            const bytes = new Uint8Array(await (await fetch(npy.href)).arrayBuffer());
            let npyText = "";
            for (const b of bytes) npyText += String.fromCharCode(b);
            const text = (id) => document.getElementById(id).textContent;
            return {{ outcome, ticks, longest, npyName: npy.download, npy: btoa(npyText),
                      status: document.getElementById("status").dataset.state,
                      editor: document.getElementById("editor").value, defines: document.getElementById("defines").value,
                      diagnostics: text("diagnostics"), schedule: text("schedule-text"), wgsl: text("wgsl"),
                      result: document.getElementById("run-result").innerText }};
        }})()"#
    );
    tools
        .evaluate(&script, deadline)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn the_playground_runs_two_examples_and_matches_the_interpreter() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    if !npm::package() {
        return;
    }
    let site = Site::start(&npm::root(), Vec::new()).expect("a server");
    let mut page = Page::open(&chromium, &format!("{}/playground/", site.url())).expect("Chromium");
    let deadline = Instant::now() + Duration::from_secs(300);
    let fail =
        |page: &Page, e: String| -> ! { panic!("{e}\n-- the browser's log:\n{}", page.log_tail()) };
    let mut tools = page.devtools(deadline).unwrap_or_else(|e| fail(&page, e));
    // The page is ready once its script has loaded the compiler and the
    // first example.
    let ready = r#"(async () => {
        if (window.playground === undefined) return null;
        await window.playground.idle();
        return document.getElementById("status").dataset.state;
    })()"#;
    // A page whose module graph has not run after a minute is loaded again
    // (at most twice), and a failure says where the page stood.
    let mut reload_at = Instant::now() + Duration::from_secs(60);
    let mut reloads = 0;
    let state = loop {
        page.alive().unwrap_or_else(|e| fail(&page, e));
        match tools
            .evaluate(ready, deadline)
            .unwrap_or_else(|e| fail(&page, e))
        {
            Json::Null => std::thread::sleep(Duration::from_millis(200)),
            s => break s,
        }
        if Instant::now() >= deadline {
            let at = tools
                .evaluate("`${location.href} ${document.readyState}`", deadline)
                .unwrap_or_default();
            fail(
                &page,
                format!("the playground did not load in time ({at}, {reloads} reloads)"),
            );
        }
        if Instant::now() >= reload_at && reloads < 2 {
            reloads += 1;
            reload_at = Instant::now() + Duration::from_secs(60);
            let at = tools
                .evaluate(
                    r#"`${location.href} ${document.readyState}: ${performance.getEntriesByType("resource").map((e) => `${e.name.replace(location.origin, "")} ${Math.round(e.responseEnd)}`).join(", ")}`"#,
                    deadline,
                )
                .unwrap_or_default();
            eprintln!("playground: not loaded after a minute ({at}); reloading ({reloads})");
            tools
                .call(
                    "Page.reload",
                    serde_json::json!({"ignoreCache": true}),
                    deadline,
                )
                .unwrap_or_else(|e| fail(&page, e));
        }
    };
    assert_eq!(state, "ready", "the playground did not start: {state}");

    // The examples the webgpu target cannot compile (f16) are marked.
    let menu = r#"Object.fromEntries([...document.getElementById("example").options]
        .map((o) => [o.value, o.textContent]))"#;
    let menu = tools
        .evaluate(menu, deadline)
        .unwrap_or_else(|e| fail(&page, e));
    for f16 in ["matmul_f16", "mlp_f16"] {
        assert_eq!(menu[f16], format!("{f16} (not for webgpu)"), "{menu}");
    }
    assert_eq!(menu["softmax"], "softmax", "{menu}");
    editor_highlights(&mut tools, &page, deadline);

    for name in EXAMPLES {
        let shown = run_example(&mut tools, name, deadline);
        let outcome = &shown["outcome"];
        let source =
            std::fs::read_to_string(npm::root().join(format!("examples/{name}.te"))).unwrap();
        assert_eq!(
            shown["editor"].as_str(),
            Some(source.as_str()),
            "{name}: the editor"
        );
        assert_eq!(outcome["example"], name, "{shown}");
        assert_eq!(
            outcome["ok"], true,
            "{name}: the comparison failed: {shown}"
        );
        assert_eq!(shown["status"], "passed", "{shown}");
        assert!(
            outcome["compared"].as_u64().is_some_and(|n| n > 0),
            "{shown}"
        );
        assert!(
            shown["wgsl"].as_str().unwrap().contains("@compute"),
            "{shown}"
        );
        assert!(
            !shown["schedule"].as_str().unwrap().trim().is_empty(),
            "{shown}"
        );
        assert_eq!(shown["diagnostics"], "no errors", "{shown}");
        let result = shown["result"].as_str().unwrap();
        assert!(
            result.contains("within their error bounds") && result.contains("GPU time"),
            "{result}"
        );
        eprintln!("playground: {name} ({}): {result}", shown["defines"]);
        // The main thread ran on while the Run worked (the comparison is
        // in the worker); the longest gap is printed, not asserted.
        let ticks = shown["ticks"].as_u64().unwrap_or(0);
        assert!(ticks >= 10, "{name}: the main thread ticked {ticks} times");
        eprintln!(
            "playground: {name}: the main thread ticked {ticks} times during Run, longest gap {:.1} ms",
            shown["longest"].as_f64().unwrap_or(f64::NAN)
        );
        // The first output downloads as a .npy of its length.
        let bytes = data_encoding::BASE64
            .decode(shown["npy"].as_str().unwrap().as_bytes())
            .unwrap();
        let npy = npyz::NpyFile::new(&bytes[..]).expect("the download is a .npy");
        let len = outcome["outputs"][0]["compared"].as_u64().unwrap();
        assert_eq!(npy.shape(), &[len], "{name}: {}", shown["npyName"]);
        assert_eq!(npy.into_vec::<f32>().unwrap().len() as u64, len);
    }

    uploaded_input_runs(&mut tools, deadline);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("playground.png");
    (tools.screenshot(&path, WINDOW.0, WINDOW.1, deadline)).unwrap_or_else(|e| fail(&page, e));
    let png = std::fs::read(&path).expect("the screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
    eprintln!("playground: screenshot at {}", path.display());

    // Live diagnostics: a mistake typed into the editor shows the CLI's
    // rendering after the debounce, and Run is off until it is fixed.
    let typed = r#"(async () => {
        const editor = document.getElementById("editor");
        const good = editor.value;
        editor.value = good + "\noutput broken = compute 4 |i| nothere[i]\n";
        editor.dispatchEvent(new Event("input"));
        await new Promise((done) => setTimeout(done, 1000));
        const shown = { diagnostics: document.getElementById("diagnostics").textContent,
                        run_disabled: document.getElementById("run").disabled,
                        status: document.getElementById("status").dataset.state };
        // Clicking the error's place selects the name it is about.
        document.querySelector('#diagnostics .loc').click();
        shown.selected = editor.value.slice(editor.selectionStart, editor.selectionEnd);
        editor.value = good;
        editor.dispatchEvent(new Event("input"));
        await new Promise((done) => setTimeout(done, 1000));
        shown.after = document.getElementById("diagnostics").textContent;
        return shown;
    })()"#;
    let shown = tools
        .evaluate(typed, deadline)
        .unwrap_or_else(|e| fail(&page, e));
    let text = shown["diagnostics"].as_str().unwrap();
    assert!(
        text.contains("error[E01") && text.contains("input.te:"),
        "{text}"
    );
    assert!(text.contains("nothere"), "{text}");
    assert_eq!(shown["run_disabled"], true);
    assert_eq!(shown["status"], "error", "a stale verdict stays shown");
    assert_eq!(shown["selected"], "nothere", "clicking the error's place");
    assert_eq!(shown["after"], "no errors");

    cancel_ends_a_long_run(&mut tools, deadline);
    shared_program_survives_a_reload(&mut tools, &mut page, deadline);
}

/// softmax on an `x` uploaded as a `.npy` that npyz wrote: the Run says
/// where its input came from and matches the interpreter.
fn uploaded_input_runs(tools: &mut DevTools, deadline: Instant) {
    let len = 256 * 256;
    let values: Vec<f32> = (0..len).map(|i| (i % 7) as f32 - 3.0).collect();
    let mut file = std::io::Cursor::new(Vec::new());
    use npyz::WriterBuilder;
    let mut w = npyz::WriteOptions::<f32>::new()
        .default_dtype()
        .shape(&[len as u64])
        .writer(&mut file)
        .begin_nd()
        .unwrap();
    w.extend(values).unwrap();
    w.finish().unwrap();
    let b64 = data_encoding::BASE64.encode(file.get_ref());
    let script = format!(
        r#"(async () => {{
            await window.playground.load("softmax");
            const bytes = Uint8Array.from(atob("{b64}"), (c) => c.charCodeAt(0));
            const files = new DataTransfer();
            files.items.add(new File([bytes], "x.npy"));
            const upload = document.getElementById("upload");
            upload.files = files.files;
            upload.dispatchEvent(new Event("change"));
            await window.playground.idle();
            document.getElementById("run").click();
            const outcome = await window.playground.idle();
            return {{ outcome, uploads: document.getElementById("uploads").textContent }};
        }})()"#
    );
    let shown = tools.evaluate(&script, deadline).expect("the upload");
    assert_eq!(shown["uploads"], "uploaded: x (f32[65536])", "{shown}");
    assert_eq!(shown["outcome"]["ok"], true, "{shown}");
    assert_eq!(shown["outcome"]["inputs"], "x from x.npy", "{shown}");
}

/// matmul 368³ (a comparison of most of a minute): Cancel ends the Run.
fn cancel_ends_a_long_run(tools: &mut DevTools, deadline: Instant) {
    let script = r#"(async () => {
        await window.playground.load("matmul");
        document.getElementById("defines").value = "M=368 N=368 K=368";
        document.getElementById("run").click();
        while (document.getElementById("status").dataset.state !== "running") {
            await new Promise((r) => setTimeout(r, 10));
        }
        document.getElementById("cancel").click();
        const outcome = await window.playground.idle();
        return { outcome, status: document.getElementById("status").dataset.state,
                 cancel_disabled: document.getElementById("cancel").disabled };
    })()"#;
    let shown = tools.evaluate(script, deadline).expect("the cancel");
    assert_eq!(shown["outcome"]["cancelled"], true, "{shown}");
    assert_eq!(shown["status"], "cancelled", "{shown}");
    assert_eq!(shown["cancel_disabled"], true, "{shown}");
}

/// The editor is CodeMirror (bundled by npm/build.sh where the playground's
/// devDependencies are installed; `.ci/run` installs them): line numbers,
/// and the loaded example's keywords, types, numbers and comments
/// highlighted as such. Without the bundle the page keeps a plain textarea:
/// a loud skip here, a failure under TEXPR_REQUIRE_GPU=1.
fn editor_highlights(tools: &mut DevTools, page: &Page, deadline: Instant) {
    if !npm::root()
        .join("playground/vendor/codemirror.js")
        .is_file()
    {
        let why = "playground/vendor/codemirror.js is not built (npm/build.sh --install)";
        if texpr_tests::gpu::gpu_required() {
            panic!("TEXPR_REQUIRE_GPU=1 but {why}");
        }
        eprintln!(
            "{}\nSKIPPING THE PLAYGROUND EDITOR'S CHECK: {why}\n{}",
            "=".repeat(78),
            "=".repeat(78)
        );
        return;
    }
    let script = r#"(() => {
        const editor = document.getElementById("editor");
        const words = (cls) => [...editor.querySelectorAll(`.${cls}`)].map((e) => e.textContent);
        return { tag: editor.tagName.toLowerCase(), lines: editor.querySelectorAll(".cm-lineNumbers .cm-gutterElement").length,
                 keywords: words("tok-keyword"), types: words("tok-typeName"), numbers: words("tok-number"),
                 comments: words("tok-comment"), color: getComputedStyle(editor.querySelector(".tok-keyword") ?? editor).color };
    })()"#;
    let shown = (tools.evaluate(script, deadline))
        .unwrap_or_else(|e| panic!("{e}\n-- the browser's log:\n{}", page.log_tail()));
    assert_eq!(shown["tag"], "texpr-editor", "{shown}");
    let has = |key: &str, word: &str| {
        (shown[key].as_array()).is_some_and(|a| {
            a.iter()
                .any(|w| w.as_str().is_some_and(|w| w.contains(word)))
        })
    };
    // softmax.te, the example the page opens with.
    let src = std::fs::read_to_string(npm::root().join("examples/softmax.te")).unwrap();
    let lines = src.lines().count() as u64;
    assert!(
        shown["lines"].as_u64().is_some_and(|n| n >= lines.min(10)),
        "{shown}"
    );
    for (key, word) in [
        ("keywords", "compute"),
        ("keywords", "reduce"),
        ("types", "f32"),
        ("numbers", "256"),
    ] {
        assert!(has(key, word), "{key} lack `{word}`: {shown}");
    }
    assert!(src.contains("//") == has("comments", "//"), "{shown}");
    assert_ne!(shown["color"], "rgb(0, 0, 0)", "{shown}");
}

/// A program shared by URL (Share puts it in the address) is in the editor
/// again after a reload, with its -D line and schedule.
fn shared_program_survives_a_reload(tools: &mut DevTools, page: &mut Page, deadline: Instant) {
    let program = "param N = 8\ninput x: f32[N]\noutput y = compute N |i| x[i] * 3.0\n";
    let script = format!(
        r#"(async () => {{
            const editor = document.getElementById("editor");
            editor.value = {program:?};
            document.getElementById("defines").value = "N=16";
            document.getElementById("schedule").value = "default";
            editor.dispatchEvent(new Event("input"));
            const url = await window.playground.share();
            window.beforeReload = true;
            setTimeout(() => location.reload(), 50);
            return url;
        }})()"#
    );
    let url = tools.evaluate(&script, deadline).expect("the share");
    assert!(url.as_str().is_some_and(|u| u.contains("#p=")), "{url}");
    let restored = r#"(async () => {
        if (window.beforeReload || window.playground === undefined) return null;
        await window.playground.idle();
        const v = (id) => document.getElementById(id).value;
        return { editor: v("editor"), defines: v("defines"), schedule: v("schedule"), example: v("example"),
                 status: document.getElementById("status").dataset.state };
    })()"#;
    let shown = loop {
        page.alive().expect("the browser");
        match tools.evaluate(restored, deadline) {
            Ok(Json::Null) | Err(_) => std::thread::sleep(Duration::from_millis(200)),
            Ok(shown) => break shown,
        }
        assert!(Instant::now() < deadline, "the page did not reload in time");
    };
    assert_eq!(shown["editor"], program, "{shown}");
    assert_eq!(
        (&shown["defines"], &shown["schedule"], &shown["example"]),
        (&Json::from("N=16"), &Json::from("default"), &Json::from("")),
        "{shown}"
    );
    assert_eq!(shown["status"], "ready", "{shown}");
}
