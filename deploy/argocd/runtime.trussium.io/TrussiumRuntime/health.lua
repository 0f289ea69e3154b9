-- Argo CD health check for runtime.trussium.io/TrussiumRuntime.
--
-- Reads the runtime the way kstatus (Flux, kpt) does, so that every GitOps
-- tool agrees:
--   * status older than the spec (observedGeneration < generation): Progressing
--   * Suspended=True (the operator changes nothing until resumed):  Suspended
--   * Stalled=True (failed rollout, missing Secret, refused apply):  Degraded
--   * Ready=True (desired spec fully rolled out and serving):       Healthy
--   * anything else (rolling out, scaling, retrying):               Progressing
--
-- Plain Lua without any standard library function: Argo CD runs scripts
-- from argo-cd-cm without them unless useOpenLibs is set.
local hs = {}

local function condition(conditions, wanted)
  for i = 1, #conditions do
    if conditions[i].type == wanted then
      return conditions[i]
    end
  end
  return nil
end

if obj.status == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Trussium operator to report status"
  return hs
end

local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and (observed == nil or observed < generation) then
  hs.status = "Progressing"
  hs.message = "Waiting for the Trussium operator to process generation " .. generation
  return hs
end

local conditions = obj.status.conditions
if conditions == nil then
  conditions = {}
end
-- Suspended first: nothing the operator does moves a suspended runtime, so
-- neither Progressing nor Degraded would tell what to do about it. kstatus
-- has no such status: it reads Ready (Current while the pods serve).
local suspended = condition(conditions, "Suspended")
if suspended ~= nil and suspended.status == "True" then
  hs.status = "Suspended"
  hs.message = suspended.message
  return hs
end

local stalled = condition(conditions, "Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = stalled.message
  return hs
end

local ready = condition(conditions, "Ready")
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message
  return hs
end

hs.status = "Progressing"
local degraded = condition(conditions, "Degraded")
if degraded ~= nil and degraded.status == "True" then
  hs.message = degraded.message
elseif ready ~= nil then
  hs.message = ready.message
else
  hs.message = "Waiting for the runtime to become ready"
end
return hs
