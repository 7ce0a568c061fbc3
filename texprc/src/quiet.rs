//! Keeps the window-system part of the Vulkan stack quiet on a compute-only run.
//!
//! wgpu enables `VK_KHR_wayland_surface` on every Vulkan instance it makes
//! (wgpu 30 has no compute-only instance option). Mesa's device-selection
//! layer (`VK_LAYER_MESA_device_select`, an implicit layer) then connects to
//! a Wayland display to find the default GPU, and libwayland prints
//! `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` to
//! stderr for every instance when that variable is unset, as in CI and in
//! containers. A compute-only compiler needs neither. The layer is switched
//! off by its documented variable `NODEVICE_SELECT=1`, which must be set
//! before the Vulkan loader starts; setting a variable in a running process
//! is `unsafe` in Rust 2024 (and the workspace forbids unsafe code), so
//! texprc execs itself once with it set. Nothing changes where a runtime
//! directory exists, or where the user set `NODEVICE_SELECT` or chose a
//! device through the layer (`MESA_VK_DEVICE_SELECT`).

/// Re-executes this process with `NODEVICE_SELECT=1` when the layer would
/// print its error (returns only when it need not, or cannot, re-execute).
#[cfg(target_os = "linux")]
pub fn reexec_without_device_select() {
    use std::os::unix::process::CommandExt;
    let set = |name: &str| std::env::var_os(name).is_some();
    let runtime_dir_ok =
        std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir());
    if runtime_dir_ok || set("NODEVICE_SELECT") || set("MESA_VK_DEVICE_SELECT") {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut args = std::env::args_os();
    let argv0 = args.next().unwrap_or_else(|| exe.clone().into_os_string());
    // `exec` returns only on failure; then run as we are.
    let _ = std::process::Command::new(exe)
        .arg0(argv0)
        .args(args)
        .env("NODEVICE_SELECT", "1")
        .exec();
}

#[cfg(not(target_os = "linux"))]
pub fn reexec_without_device_select() {}
