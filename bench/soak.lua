-- soak.lua - wrk script of bench/soak.sh: a mix of dlprofviewer endpoints.
-- Each request takes the next path of a mix of page files, the dashboard's
-- panels, paged and sorted lists, drill-downs on random iterations and ops
-- (many distinct answers, so the answer cache keeps evicting), a CSV
-- export. Every path answers 200. (No HEAD requests: wrk's parser would
-- wait for the body that Content-Length announces.)
-- Environment: SOAK_ITERS (iterations in the database, default 2100).
local iters = tonumber(os.getenv("SOAK_ITERS") or "2100")
local fixed = {
  "/", "/js/api.js", "/vendor/chart.umd.js", "/css/app.css",
  "/api/v1/health", "/api/v1/info", "/api/v1/version",
  "/api/v1/performance_summary", "/api/v1/kernel_summary", "/api/v1/tc_utilization",
  "/api/v1/resource_usage_breakdown", "/api/v1/domain_model_gpu_utilization",
  "/api/v1/expert_systems", "/api/v1/iterations_profiled?limit=1000",
  "/api/v1/op_type_summary", "/api/v1/op_nodes?limit=10",
  "/api/v1/op_nodes?sort=gpu_time&order=desc&limit=100&offset=20",
  "/api/v1/op_nodes?sort=cpu_time&order=asc&limit=50&offset=100",
  "/api/v1/op_nodes?filter=conv&limit=25", "/api/v1/kernel_summaries?limit=100",
  "/api/v1/op_nodes?format=csv",
}
local n = 0
local thread_seed = 0

setup = function(thread)
  thread_seed = thread_seed + 1
  thread:set("seed", thread_seed)
end

init = function(args)
  math.randomseed(os.time() + (seed or 0) * 7919)
end

request = function()
  n = n + 1
  local k = n % 10
  local path
  if k < 7 then
    path = fixed[(n % #fixed) + 1]
  elseif k < 9 then
    path = string.format(
      "/api/v1/iteration_kernels?iter_value=%d&sort=kernel_duration&order=desc&limit=100",
      math.random(0, iters - 1))
  else
    path = string.format("/api/v1/iteration_ops?iter_value=%d&limit=50&offset=%d",
      math.random(0, iters - 1), math.random(0, 3) * 50)
  end
  return wrk.format("GET", path)
end
