//! The npm package off the main thread, in headless Chromium
//! (`tests/src/browser/worker_page.html`): `texpr/background` evaluates
//! matmul 256³ in a Web Worker while the page's main thread keeps running
//! (progress, not time, is asserted; the longest gap is printed), gives the
//! main thread's random inputs and outputs bit for bit, compares in the
//! worker, cancels a long evaluation with E0709 and answers again after,
//! and codes an argument it cannot send (E0710). The page also runs the
//! hostile-argument property (`hostile.mjs`) on the synchronous API.
//!
//! Skipped loudly without Chromium or without what building the package
//! needs; under TEXPR_REQUIRE_GPU=1 either is a failure.

use std::time::Duration;

use serde_json::Value as Json;
use texpr_tests::browser::{self, HOSTILE_JS, WORKER_PAGE};
use texpr_tests::npm;

#[test]
fn the_worker_evaluates_off_the_main_thread_and_cancels() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    if !npm::package() {
        return;
    }
    let pages = vec![
        ("/test/worker.html", WORKER_PAGE),
        ("/test/hostile.mjs", HOSTILE_JS),
    ];
    let r = browser::page_results(
        &chromium,
        pages,
        "/test/worker.html",
        Duration::from_secs(300),
    );

    assert_eq!(r["inputsSame"], true, "the worker's random inputs differ");
    assert_eq!(r["outputsSame"], true, "the worker's outputs differ");
    assert_eq!(
        r["verdict"],
        serde_json::json!({"ok": true, "complete": true})
    );
    // The main thread ran on while the worker evaluated.
    let ticks = r["ticks"].as_u64().expect("ticks");
    assert!(ticks >= 10, "the main thread ticked {ticks} times");
    eprintln!(
        "npm_worker: matmul 256³ evaluated in the worker; the main thread ticked {ticks} times, \
         its longest gap {:.1} ms",
        r["longestGapMs"].as_f64().unwrap_or(f64::NAN)
    );
    assert_eq!(
        (&r["busy"], &r["cancelled"]),
        (&Json::Bool(true), &Json::from(1))
    );
    assert_eq!(r["ended"], "E0709");
    assert_eq!(r["after"], "ok");
    assert_eq!(r["unsendable"], "E0710");
    assert_eq!(r["notString"], "E0707");

    let p = &r["property"];
    assert_eq!(p["cases"], 1000);
    assert_eq!(p["failed"], 0, "in Chromium: {:#}", p["failures"]);
    assert!(p["succeeded"].as_u64().is_some_and(|n| n >= 50), "{p}");
}
