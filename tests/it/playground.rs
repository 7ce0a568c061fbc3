//! The playground (playground/, docs/npm.md) in headless Chromium, driven
//! as a user would through the DevTools Protocol: it loads, runs two
//! examples (each Run: random inputs, the WebGPU run, the in-page
//! interpreter's comparison), shows live diagnostics for a mistake typed
//! into the editor, and a screenshot of it is saved at
//! `target/tmp/playground.png` (printed).
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
            const outcome = await window.playground.idle();
            const text = (id) => document.getElementById(id).textContent;
            return {{ outcome, status: document.getElementById("status").dataset.state,
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
    let state = loop {
        page.alive().unwrap_or_else(|e| fail(&page, e));
        match tools
            .evaluate(ready, deadline)
            .unwrap_or_else(|e| fail(&page, e))
        {
            Json::Null => std::thread::sleep(Duration::from_millis(200)),
            s => break s,
        }
        assert!(
            Instant::now() < deadline,
            "the playground did not load in time"
        );
    };
    assert_eq!(state, "ready", "the playground did not start: {state}");

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
    }

    // Live diagnostics: a mistake typed into the editor shows the CLI's
    // rendering after the debounce, and Run is off until it is fixed.
    let typed = r#"(async () => {
        const editor = document.getElementById("editor");
        const good = editor.value;
        editor.value = good + "\noutput broken = compute 4 |i| nothere[i]\n";
        editor.dispatchEvent(new Event("input"));
        await new Promise((done) => setTimeout(done, 1000));
        const shown = { diagnostics: document.getElementById("diagnostics").textContent,
                        run_disabled: document.getElementById("run").disabled };
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
    assert_eq!(shown["selected"], "nothere", "clicking the error's place");
    assert_eq!(shown["after"], "no errors");

    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("playground.png");
    (tools.screenshot(&path, WINDOW.0, WINDOW.1, deadline)).unwrap_or_else(|e| fail(&page, e));
    let png = std::fs::read(&path).expect("the screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
    eprintln!("playground: screenshot at {}", path.display());
}
