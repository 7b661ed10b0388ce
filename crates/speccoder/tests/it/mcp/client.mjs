// Drives `speccoder mcp` with the official MCP TypeScript SDK client and prints what it saw
// as one JSON object; crates/speccoder/tests/mcp.rs starts it and checks the answers.
//
//   node client.mjs SCENARIO CONFIG_JSON
//
// CONFIG_JSON holds `bin` (the speccoder binary) and `project` (its -C), and what the
// scenario needs. The SDK is loaded from $TOOLS_DIR/mcp-sdk, where
// scripts/install-tools.sh puts it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const toolsDir = process.env.TOOLS_DIR || path.join(process.env.HOME, '.cache/speccoder-tools');
const require = createRequire(path.join(toolsDir, 'mcp-sdk', 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { ToolListChangedNotificationSchema } = require('@modelcontextprotocol/sdk/types.js');

const [scenario, configJson] = process.argv.slice(2);
const config = JSON.parse(configJson);

const transport = new StdioClientTransport({
  command: config.bin,
  args: ['-C', config.project, 'mcp'],
  env: process.env,
  stderr: 'inherit',
});
const client = new Client({ name: 'speccoder-tests', version: '1.0.0' });
// What the SDK reports as a protocol fault: a progress notification for a token it never
// sent, an answer to a request it cancelled, a line that is not JSON-RPC.
const errors = [];
client.onerror = (err) => errors.push(String(err));
let listChanged = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  listChanged += 1;
});
await client.connect(transport);

const summary = (result) => ({
  text: result.content?.[0]?.text ?? null,
  isError: result.isError ?? false,
  structured: result.structuredContent ?? null,
});
const call = (args, options) => client.callTool({ name: 'recipe', arguments: args }, undefined, options);

const out = {};
switch (scenario) {
  case 'calls': {
    out.tools = (await client.listTools()).tools;
    out.calls = [];
    for (const args of config.calls) out.calls.push(summary(await call(args)));
    break;
  }
  case 'progress-and-cancel': {
    // The first progress notification that reports output cancels the call.
    const controller = new AbortController();
    out.progress = [];
    try {
      await call(
        { op: config.long },
        {
          signal: controller.signal,
          timeout: 600_000,
          onprogress: (progress) => {
            out.progress.push(progress);
            if (/ [1-9][0-9]* bytes/.test(progress.message ?? '')) controller.abort('enough');
          },
        },
      );
      out.cancelled = false;
    } catch (err) {
      out.cancelled = true;
      out.reason = String(err);
    }
    // A call without a progress token, long enough for a notification, gets none.
    out.after = summary(await call({ op: config.quiet }));
    break;
  }
  case 'changed': {
    out.before = (await client.listTools()).tools[0].description;
    out.first = summary(await call({ op: config.op }));
    fs.appendFileSync(config.file, config.append);
    out.second = summary(await call({ op: config.newOp }));
    // The notification comes before the answer; give its handler its turn.
    for (let i = 0; i < 50 && listChanged === 0; i++) await new Promise((r) => setTimeout(r, 20));
    out.listChanged = listChanged;
    out.after = (await client.listTools()).tools[0].description;
    break;
  }
  default:
    throw new Error(`unknown scenario ${scenario}`);
}
out.errors = errors;
await client.close();
process.stdout.write(JSON.stringify(out));
