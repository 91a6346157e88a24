// The client side of bench/acp-differential: the same steps against any ACP agent
// (initialize, a new session, a text prompt, a prompt that runs a command with the permission
// answered "allow once"), printing everything it got as JSON.
//   node acp-differential.mjs AGENT_JSON WORKSPACE SDK_FOLDER
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
const [agentJson, workspace, sdkDir] = process.argv.slice(2);
const [program, ...args] = JSON.parse(agentJson);
const acp = await import(pathToFileURL(join(sdkDir, "node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js")).href);
const record = { updates: [], permissions: [], errors: [] };
const child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"], cwd: workspace });
let stderr = ""; child.stderr.on("data", (d) => { stderr += d; });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const app = acp.client({ name: "diff" })
  .onNotification(acp.methods.client.session.update, ({ params }) => { record.updates.push(params.update); })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    record.permissions.push(params);
    const once = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
    return { outcome: { outcome: "selected", optionId: once.optionId } };
  });
const timeout = setTimeout(() => { record.errors.push("timed out"); finish(); }, 60000);
function finish() { record.stderr = stderr.slice(-3000); process.stdout.write(JSON.stringify(record, null, 1) + "\n"); child.kill(); process.exit(0); }
try {
  await app.connectWith(stream, async (agent) => {
    record.initialize = await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
    record.session = await agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    const sessionId = record.session.sessionId;
    try { record.prompt1 = await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Say hello" }] }); } catch (e) { record.errors.push("prompt1: " + e.message); }
    try { record.prompt2 = await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Run echo hi" }] }); } catch (e) { record.errors.push("prompt2: " + e.message); }
  });
} catch (e) { record.errors.push(String(e)); }
clearTimeout(timeout); finish();
