"""The official Python MCP SDK (the `mcp` package, 2.x) as a client of `speccoder mcp`:
initialize, list the tools, a call with progress, an error, and 20 calls at once. Prints
what it saw as one JSON object; the Rust test asserts on it.

Usage: python client.py CONFIG_JSON, where CONFIG_JSON holds `bin`, `project` and `env`.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(config):
    params = StdioServerParameters(
        command=config["bin"],
        args=["-C", config["project"], "mcp"],
        env=config["env"],
    )
    seen = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = dump(await session.initialize())
            seen["protocolVersion"] = init["protocolVersion"]
            seen["serverName"] = init["serverInfo"]["name"]
            tools = dump(await session.list_tools())["tools"]
            seen["tools"] = [tool["name"] for tool in tools]
            seen["titles"] = [tool.get("title") for tool in tools]
            progress = []

            async def on_progress(value, total, message):
                progress.append({"progress": value, "message": message})

            slow = dump(
                await session.call_tool("recipe", {"op": "slow"}, progress_callback=on_progress)
            )
            seen["slow"] = {"text": slow["content"][0]["text"], "isError": slow.get("isError", False)}
            seen["progress"] = progress
            bad = dump(await session.call_tool("recipe", {"op": "nosuch"}))
            seen["unknown"] = {"text": bad["content"][0]["text"], "isError": bad.get("isError", False)}
            fail = dump(await session.call_tool("recipe", {"op": "fail"}))
            seen["fail"] = {
                "isError": fail.get("isError", False),
                "exit_code": fail["structuredContent"]["exit_code"],
            }
            many = await asyncio.gather(
                *[session.call_tool("recipe", {"op": f"hello N={i}"}) for i in range(20)]
            )
            seen["many"] = [dump(r)["content"][0]["text"] for r in many]
    print(json.dumps(seen))


asyncio.run(main(json.loads(sys.argv[1])))
