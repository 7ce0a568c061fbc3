// What a plan (docs/plan-json.md) asks of a WebGPU device, in WebGPU's
// names: the one table of features and limits for JavaScript. The
// package's runtime (run.js) and the test suite's browser page
// (tests/src/browser/page.html) both check a plan's `requires` with it.

/** WGSL extension names (`plan.requires.extensions`, `enable NAME;`) to
 * WebGPU feature names. */
export const FEATURE_OF = { subgroups: "subgroups", f16: "shader-f16" };

/** `plan.requires.limits` (snake case) to GPUSupportedLimits;
 * `max_compute_workgroup_size` is the three `maxComputeWorkgroupSize*`. */
export const LIMIT_OF = {
  max_compute_invocations_per_workgroup: "maxComputeInvocationsPerWorkgroup",
  max_compute_workgroups_per_dimension: "maxComputeWorkgroupsPerDimension",
  max_storage_buffers_per_shader_stage: "maxStorageBuffersPerShaderStage",
  max_storage_buffer_binding_size: "maxStorageBufferBindingSize",
  max_buffer_size: "maxBufferSize",
  max_compute_workgroup_storage_size: "maxComputeWorkgroupStorageSize",
};

/** What `requires` asks that `device` (with its adapter's `info`) lacks:
 * one message each, empty when the device can run the plan. Every
 * extension's feature, every limit (one this table does not know is
 * unmet too, so the table keeps up with the format), and the subgroup
 * size the kernels assume within the adapter's smallest. */
export function unmet(requires, device, info = {}) {
  const out = [];
  for (const e of requires.extensions ?? []) {
    const f = FEATURE_OF[e] ?? e;
    if (!device.features.has(f)) out.push(`the WGSL extension ${e}: the device lacks the feature ${f}`);
  }
  const have = device.limits;
  for (const [name, need] of Object.entries(requires.limits ?? {})) {
    if (name === "max_compute_workgroup_size") {
      const sizes = [have.maxComputeWorkgroupSizeX, have.maxComputeWorkgroupSizeY, have.maxComputeWorkgroupSizeZ];
      if (need.some((n, i) => n > sizes[i])) out.push(`${name}: needs ${need}, the device has ${sizes}`);
    } else if (!(name in LIMIT_OF)) {
      out.push(`${name}: a limit this runtime does not know`);
    } else if (need > have[LIMIT_OF[name]]) {
      out.push(`${name}: needs ${need}, the device has ${have[LIMIT_OF[name]]}`);
    }
  }
  const min = requires.subgroup_min_size ?? null;
  if (min !== null && !((info.subgroupMinSize ?? 0) >= min)) {
    out.push(`subgroup_min_size: the kernels assume ${min} lanes, the adapter's smallest subgroup is ${info.subgroupMinSize}`);
  }
  return out;
}
