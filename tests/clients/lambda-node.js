// A third-party Lambda Cloud client (lambda-cloud-node-api, unmodified) against
// `gpurent sim serve --dialect lambda` (URL and key as arguments): list types and keys, launch, list, get, terminate,
// and a rejected key. Prints one line per step; exits non-zero on any failure.
const { LambdaCloudAPI } = require("lambda-cloud-node-api");
(async () => {
  const api = new LambdaCloudAPI({ apiKey: process.argv[3], basePath: process.argv[2] + "/api/v1" });
  const types = await api.listInstanceTypes();
  const names = Object.keys(types);
  console.log("types:", names.length, names[0], JSON.stringify(types[names[0]].instance_type.price_cents_per_hour));
  const keys = await api.listSSHKeys();
  console.log("ssh keys:", keys.length, keys.map(k => k.name).join(","));
  const avail = names.find(n => types[n].regions_with_capacity_available.length > 0);
  const region = types[avail].regions_with_capacity_available[0].name;
  const launched = await api.launchInstance({ region_name: region, instance_type_name: avail, ssh_key_names: keys.length ? [keys[0].name] : [], name: "node-client" });
  console.log("launched:", JSON.stringify(launched));
  const running = await api.listRunningInstances();
  console.log("running:", running.length, running.map(i => i.id + ":" + i.status).join(","));
  const one = await api.getRunningInstance(launched.instance_ids[0]);
  console.log("get:", one.id, one.status, one.instance_type.name);
  const term = await api.terminateInstances(launched.instance_ids);
  console.log("terminated:", term.terminated_instances.map(i => i.id + ":" + i.status).join(","));
  try { await new LambdaCloudAPI({ apiKey: "wrong", basePath: process.argv[2] + "/api/v1" }).listInstanceTypes(); console.log("bad key accepted!"); }
  catch (e) { console.log("bad key rejected:", JSON.stringify(e)); }
})().catch(e => { console.error("FAILED", e); process.exit(1); });
