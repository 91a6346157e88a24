#!/usr/bin/env python3
"""An LLM API mock written from the providers' public documentation, independently of
rein-testkit, to check rein's wire formats against a second implementation.

    python3 scripts/independent-mock.py --script FILE [--port N] [--fragment]

Prints `listening on http://127.0.0.1:PORT`. The n-th POST gets the n-th turn of the script
({"turns": [{"text": ..., "thinking": ..., "tool_calls": [{"name": ..., "arguments": {...}}]}]}).
Routes: POST /v1/messages (Anthropic Messages), /v1/responses (OpenAI Responses),
/v1/chat/completions (OpenAI Chat Completions), all streaming. Requests are validated strictly
(headers, body shape, tool call/result pairing, thinking signatures echoed); a violation is
answered with the provider's error shape and HTTP 400 and logged on stderr. `--fragment` splits
every write at odd byte positions (inside UTF-8 characters and lines).
"""
import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STATE = {"n": 0, "signatures": set(), "lock": threading.Lock()}


class Invalid(Exception):
    pass


def need(cond, message):
    if not cond:
        raise Invalid(message)


def check_anthropic(headers, body):
    need(headers.get("x-api-key"), "missing x-api-key header")
    need(headers.get("anthropic-version"), "missing anthropic-version header")
    need(isinstance(body.get("model"), str), "model must be a string")
    need(isinstance(body.get("max_tokens"), int), "max_tokens must be an integer")
    need(body.get("stream") is True, "stream must be true")
    system = body.get("system")
    need(system is None or isinstance(system, str) or (isinstance(system, list) and all(b.get("type") == "text" for b in system)),
         "system must be a string or text blocks")
    for tool in body.get("tools", []):
        need(tool.get("name") and "description" in tool and tool.get("input_schema", {}).get("type") == "object",
             "tools need name, description and an object input_schema")
    messages = body.get("messages")
    need(isinstance(messages, list) and messages, "messages must be a non-empty list")
    need(messages[0]["role"] == "user", "the first message must be a user message")
    pending = []
    for i, msg in enumerate(messages):
        need(msg["role"] in ("user", "assistant"), f"bad role {msg['role']}")
        if i:
            need(msg["role"] != messages[i - 1]["role"], "roles must alternate")
        content = msg["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if msg["role"] == "user":
            results = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
            need(results == pending, f"tool results {results} must answer {pending} first")
            if pending:
                need(all(b["type"] == "tool_result" for b in blocks[:len(pending)]), "tool_result blocks must come first")
            pending = []
        else:
            need(not pending, "an assistant message left tool calls unanswered")
            for b in blocks:
                if b["type"] == "thinking":
                    need(b.get("signature") in STATE["signatures"], "thinking block signature not echoed unchanged")
            pending = [b["id"] for b in blocks if b["type"] == "tool_use"]
    need(not pending, "the last assistant message has unanswered tool calls")


def check_responses(headers, body):
    need(headers.get("authorization", "").startswith("Bearer "), "missing Authorization: Bearer")
    need(isinstance(body.get("model"), str), "model must be a string")
    need(body.get("stream") is True, "stream must be true")
    need(isinstance(body.get("input"), list), "input must be a list")
    for tool in body.get("tools", []):
        need(tool.get("type") == "function" and tool.get("name") and "parameters" in tool,
             "Responses tools are flat: {type: function, name, parameters}")
    calls, outputs = [], []
    for item in body["input"]:
        kind = item.get("type", "message")
        if kind == "function_call":
            need(item.get("call_id") and item.get("name") and isinstance(item.get("arguments"), str),
                 "function_call needs call_id, name and string arguments")
            calls.append(item["call_id"])
        elif kind == "function_call_output":
            need(item.get("call_id") in calls, f"function_call_output {item.get('call_id')} has no function_call")
            need(isinstance(item.get("output"), str), "output must be a string")
            outputs.append(item["call_id"])
        elif kind == "message":
            need(item.get("role") in ("user", "assistant", "system", "developer"), "bad message role")
    need(sorted(calls) == sorted(outputs), "every function_call needs a function_call_output")


def check_chat(headers, body):
    need(headers.get("authorization", "").startswith("Bearer "), "missing Authorization: Bearer")
    need(isinstance(body.get("model"), str), "model must be a string")
    need(body.get("stream") is True, "stream must be true")
    for tool in body.get("tools", []):
        fn = tool.get("function", {})
        need(tool.get("type") == "function" and fn.get("name") and "parameters" in fn,
             "chat tools are nested: {type: function, function: {name, parameters}}")
    pending = []
    for msg in body["messages"]:
        role = msg.get("role")
        if role == "tool":
            need(msg.get("tool_call_id") in pending, f"tool message for unknown call {msg.get('tool_call_id')}")
            need(isinstance(msg.get("content"), str), "tool content must be a string")
            pending.remove(msg["tool_call_id"])
            continue
        need(not pending, f"tool calls {pending} unanswered before a {role} message")
        if role == "assistant":
            for call in msg.get("tool_calls") or []:
                need(call.get("type") == "function" and isinstance(call["function"].get("arguments"), str),
                     "assistant tool_calls need type function and string arguments")
                pending.append(call["id"])
    need(not pending, "unanswered tool calls at the end")


def sse(event, data):
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def pieces(text):
    return [text[i:i + 3] for i in range(0, len(text), 3)] or [""]


def anthropic_stream(turn, n):
    out = [sse("message_start", {"type": "message_start", "message": {"id": f"msg_{n}", "type": "message", "role": "assistant",
           "model": "mock", "content": [], "stop_reason": None, "stop_sequence": None,
           "usage": {"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 0}}})]
    out.append(sse("ping", {"type": "ping"}))
    index = 0
    if turn.get("thinking"):
        sig = f"sig-{n}"
        STATE["signatures"].add(sig)
        out.append(sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}))
        for p in pieces(turn["thinking"]):
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": p}}))
        out.append(sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": {"type": "signature_delta", "signature": sig}}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    if turn.get("text"):
        out.append(sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}))
        for p in pieces(turn["text"]):
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": p}}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    for k, call in enumerate(turn.get("tool_calls", [])):
        out.append(sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": f"toolu_{n}_{k}", "name": call["name"], "input": {}}}))
        for p in pieces(json.dumps(call["arguments"])):
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": p}}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    stop = "tool_use" if turn.get("tool_calls") else "end_turn"
    out.append(sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 42}}))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return out


def responses_stream(turn, n):
    seq = [0]
    def ev(kind, **fields):
        seq[0] += 1
        return sse(kind, {"type": kind, "sequence_number": seq[0], **fields})
    resp = {"id": f"resp_{n}", "object": "response", "status": "in_progress", "model": "mock", "output": []}
    out = [ev("response.created", response=resp), ev("response.in_progress", response=resp)]
    output, idx = [], 0
    if turn.get("thinking"):
        item = {"id": f"rs_{n}", "type": "reasoning", "summary": []}
        out.append(ev("response.output_item.added", output_index=idx, item=item))
        out.append(ev("response.reasoning_summary_part.added", item_id=item["id"], output_index=idx, summary_index=0, part={"type": "summary_text", "text": ""}))
        for p in pieces(turn["thinking"]):
            out.append(ev("response.reasoning_summary_text.delta", item_id=item["id"], output_index=idx, summary_index=0, delta=p))
        out.append(ev("response.reasoning_summary_text.done", item_id=item["id"], output_index=idx, summary_index=0, text=turn["thinking"]))
        done = {**item, "summary": [{"type": "summary_text", "text": turn["thinking"]}]}
        out.append(ev("response.output_item.done", output_index=idx, item=done))
        output.append(done)
        idx += 1
    if turn.get("text"):
        item = {"id": f"msg_{n}", "type": "message", "role": "assistant", "status": "in_progress", "content": []}
        out.append(ev("response.output_item.added", output_index=idx, item=item))
        out.append(ev("response.content_part.added", item_id=item["id"], output_index=idx, content_index=0, part={"type": "output_text", "text": "", "annotations": []}))
        for p in pieces(turn["text"]):
            out.append(ev("response.output_text.delta", item_id=item["id"], output_index=idx, content_index=0, delta=p))
        out.append(ev("response.output_text.done", item_id=item["id"], output_index=idx, content_index=0, text=turn["text"]))
        part = {"type": "output_text", "text": turn["text"], "annotations": []}
        out.append(ev("response.content_part.done", item_id=item["id"], output_index=idx, content_index=0, part=part))
        done = {**item, "status": "completed", "content": [part]}
        out.append(ev("response.output_item.done", output_index=idx, item=done))
        output.append(done)
        idx += 1
    for k, call in enumerate(turn.get("tool_calls", [])):
        args = json.dumps(call["arguments"])
        item = {"id": f"fc_{n}_{k}", "type": "function_call", "status": "in_progress", "call_id": f"call_{n}_{k}", "name": call["name"], "arguments": ""}
        out.append(ev("response.output_item.added", output_index=idx, item=item))
        for p in pieces(args):
            out.append(ev("response.function_call_arguments.delta", item_id=item["id"], output_index=idx, delta=p))
        out.append(ev("response.function_call_arguments.done", item_id=item["id"], output_index=idx, arguments=args))
        done = {**item, "status": "completed", "arguments": args}
        out.append(ev("response.output_item.done", output_index=idx, item=done))
        output.append(done)
        idx += 1
    final = {**resp, "status": "completed", "output": output,
             "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 42,
                       "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 52}}
    out.append(ev("response.completed", response=final))
    return out


def chat_stream(turn, n, include_usage):
    def chunk(delta, finish=None):
        return sse(None, {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 0, "model": "mock",
                          "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    out = [chunk({"role": "assistant", "content": ""})]
    for p in pieces(turn.get("thinking", "")) if turn.get("thinking") else []:
        out.append(chunk({"reasoning_content": p}))
    for p in pieces(turn.get("text", "")) if turn.get("text") else []:
        out.append(chunk({"content": p}))
    for k, call in enumerate(turn.get("tool_calls", [])):
        args = pieces(json.dumps(call["arguments"]))
        out.append(chunk({"tool_calls": [{"index": k, "id": f"call_{n}_{k}", "type": "function", "function": {"name": call["name"], "arguments": args[0]}}]}))
        for p in args[1:]:
            out.append(chunk({"tool_calls": [{"index": k, "function": {"arguments": p}}]}))
    out.append(chunk({}, "tool_calls" if turn.get("tool_calls") else "stop"))
    if include_usage:
        out.append(sse(None, {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 0, "model": "mock", "choices": [],
                              "usage": {"prompt_tokens": 10, "completion_tokens": 42, "total_tokens": 52}}))
    out.append("data: [DONE]\n\n")
    return out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("mock: " + fmt % args + "\n")

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        raw = self.rfile.read(length)
        headers = {k.lower(): v for k, v in self.headers.items()}
        route = self.path
        try:
            body = json.loads(raw)
            if route == "/v1/messages":
                check_anthropic(headers, body)
            elif route == "/v1/responses":
                check_responses(headers, body)
            elif route == "/v1/chat/completions":
                check_chat(headers, body)
            else:
                return self.fail(404, route, "no such route")
        except (Invalid, KeyError, TypeError, ValueError) as e:
            return self.fail(400, route, f"{type(e).__name__}: {e}")
        with STATE["lock"]:
            n = STATE["n"]
            STATE["n"] += 1
        turns = SCRIPT["turns"]
        if n >= len(turns):
            return self.fail(500, route, "the script has no more turns")
        turn = turns[n]
        if route == "/v1/messages":
            events = anthropic_stream(turn, n)
        elif route == "/v1/responses":
            events = responses_stream(turn, n)
        else:
            events = chat_stream(turn, n, (body.get("stream_options") or {}).get("include_usage"))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        data = "".join(events).encode()
        step = 7 if FRAGMENT else len(data) or 1
        for i in range(0, len(data), step):
            self.wfile.write(data[i:i + step])
            self.wfile.flush()
        self.close_connection = True
        sys.stderr.write(f"mock: {route} turn {n} ok\n")

    def fail(self, status, route, message):
        sys.stderr.write(f"mock: REJECTED {route}: {message}\n")
        if route == "/v1/messages":
            payload = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
        else:
            payload = {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--script", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--fragment", action="store_true")
    args = parser.parse_args()
    with open(args.script) as f:
        SCRIPT = json.load(f)
    FRAGMENT = args.fragment
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
