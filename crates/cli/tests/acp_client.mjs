// An editor's side of ACP, written with the official TypeScript SDK (@agentclientprotocol/sdk,
// installed by scripts/test-deps into REIN_TEST_NODE), driving an agent through a scripted
// session. Prints one JSON object: everything the agent sent and answered.
//
// node acp_client.mjs AGENT_JSON WORKSPACE
//   AGENT_JSON: the agent's command line as a JSON array (["rein", "acp", ...]).
// The script: initialize; a new session; a prompt with a resource link and an embedded
// resource (the approvals answered "allow always"; the files read and written through the
// editor's buffers); a mode change to bypass; a prompt cancelled
// once its command started; then a second connection that loads the session.

import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [agentJson, workspace] = process.argv.slice(2);
const [program, ...args] = JSON.parse(agentJson);
const sdk = join(process.env.REIN_TEST_NODE, "node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js");
const acp = await import(pathToFileURL(sdk).href);

const record = { updates: [], permissions: [], loaded: [], files: [] };
// The editor's buffers: notes.txt has a line not yet saved. A write updates the buffer and
// saves it, as Zed does.
const buffers = new Map([[join(workspace, "notes.txt"), "hello\n(unsaved line)\n"]]);
let sink = record.updates;

function connection() {
  const child = spawn(program, args, { stdio: ["pipe", "pipe", "inherit"], cwd: workspace });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const app = acp
    .client({ name: "rein-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      sink.push(params.update);
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      record.files.push(`read ${params.path}`);
      const text = buffers.get(params.path) ?? readFileSync(params.path, "utf8");
      return { content: text };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      record.files.push(`write ${params.path}`);
      buffers.set(params.path, params.content);
      writeFileSync(params.path, params.content);
      return {};
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      record.permissions.push(params);
      const always = params.options.find((option) => option.kind === "allow_always");
      return { outcome: { outcome: "selected", optionId: always.optionId } };
    });
  return { child, stream, app };
}

async function until(what, check) {
  const deadline = Date.now() + 20000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`no ${what} in 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const first = connection();
await first.app.connectWith(first.stream, async (agent) => {
  record.initialize = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    // The files through the editor's buffers; commands shown in its display-only terminals.
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, _meta: { terminal_output: true } },
    clientInfo: { name: "rein-test", version: "0" },
  });
  const created = await agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
  record.session = created;
  const sessionId = created.sessionId;
  record.firstPrompt = await agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [
      { type: "text", text: "Update the notes" },
      { type: "resource_link", name: "notes.txt", uri: pathToFileURL(join(workspace, "notes.txt")).href },
      {
        type: "resource",
        resource: { uri: "file:///unsaved/draft.md", text: "a draft only the editor has", mimeType: "text/markdown" },
      },
    ],
  });
  record.setMode = await agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "bypass" });
  const cancelled = agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "Wait a while" }],
  });
  await until("the command's output in its terminal", () =>
    record.updates.some((update) => update._meta?.terminal_output?.data?.includes("going")),
  );
  await agent.notify(acp.methods.agent.session.cancel, { sessionId });
  record.cancelledPrompt = await cancelled;
});
first.child.kill();

sink = record.loaded;
const second = connection();
await second.app.connectWith(second.stream, async (agent) => {
  await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  record.load = await agent.request(acp.methods.agent.session.load, {
    sessionId: record.session.sessionId,
    cwd: workspace,
    mcpServers: [],
  });
});
second.child.kill();
process.stdout.write(JSON.stringify(record) + "\n");
process.exit(0);
