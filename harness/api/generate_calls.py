#!/usr/bin/env python3
"""Generates the client API's code from its one table of calls (harness/api/calls.yaml).

CMake runs it at configure time (and again whenever the table or this file changes); what it
writes lives in the build folder, never in the repository. The call table in docs/lanes.md is
the one output that is committed: `--docs FILE` rewrites it and `--check-docs FILE` fails when it
is stale (the test Tidemark.Calls.TheDocsTableIsCurrent).

    generate_calls.py --table calls.yaml --out BUILD/generated
    generate_calls.py --table calls.yaml --check-docs docs/lanes.md
"""

import argparse
import os
import sys
import textwrap

import yaml

# Types a call takes by value; every other argument is taken by const reference.
BY_VALUE = {"bool", "uint32_t", "int32_t", "uint64_t", "int64_t", "api::BufferId", "api::FenceId", "MemoryType",
            "Bytes"}
# A type as the api:: interfaces spell it (the wire's aliases are not theirs).
API_SPELLING = {"Bytes": "std::span<const uint8_t>"}
LIFTS = {"step", "read", "refuse"}
DOCS_BEGIN = "<!-- calls table: generated from harness/api/calls.yaml by generate_calls.py -->"
DOCS_END = "<!-- end of the calls table -->"


class TableError(Exception):
    pass


class Arg:
    def __init__(self, name, spec):
        words = str(spec).split()
        self.name = name
        self.type = words[0]
        self.flatten = words[1:] == ["flatten"]
        if words[1:] and not self.flatten:
            raise TableError(f"argument {name}: expected a type and at most 'flatten', found '{spec}'")

    def api_type(self, in_api):
        spelled = API_SPELLING.get(self.type, self.type) if in_api else self.type
        if in_api and spelled.startswith("api::"):
            spelled = spelled[len("api::"):]
        return spelled if self.type in BY_VALUE else f"const {spelled}&"


STEP_TARGETS = {"Device", "KernelMemory", "KernelDriver", "Trace"}
# How a one-call step's field is read (scenario/schema_steps.cpp's readers) and held.
FIELD_KINDS = {"u32", "u64", "bool", "memory_type"}


class StepField:
    def __init__(self, name, spec):
        self.name = name
        self.kind = spec.get("as")
        if self.kind not in FIELD_KINDS:
            raise TableError(f"step field {name}: as: expected one of {sorted(FIELD_KINDS)}, found '{self.kind}'")
        self.rule = spec.get("rule")
        if (self.kind in ("u32", "u64")) != (self.rule is not None):
            raise TableError(f"step field {name}: an integer field names its rule, no other does")
        self.default = spec.get("default")
        if self.kind in ("u32", "u64") and self.default not in (None, 0):
            raise TableError(f"step field {name}: an integer field's default is 0 or none")
        self.doc = spec.get("doc")

    def docs(self):
        if self.doc:
            return f"`{self.name}` ({self.doc})"
        if self.default is not None:
            return f"`{self.name}` ({str(self.default).lower()})"
        return f"`{self.name}`"


class Step:
    """The scenario step that drives a call. A step whose `fields` is a mapping is the call's
    arguments and nothing more: its type, reader, run and docs row are generated. Otherwise its
    type and reader are written by hand (scenario/) and `fields` is its docs row's text."""

    def __init__(self, spec):
        self.name, self.type, self.target = spec["name"], spec["type"], spec["target"]
        if self.target not in STEP_TARGETS:
            raise TableError(f"step {self.name}: target: expected one of {sorted(STEP_TARGETS)}")
        self.one_call = isinstance(spec.get("fields"), dict)
        if self.one_call:
            self.fields = [StepField(name, f) for name, f in spec["fields"].items()]
            self.doc = " ".join(spec["doc"].split())
            self.reader = f"plain<{self.type}>" if self.fields else f"no_fields<{self.type}>"
            self.fields_doc = ", ".join(f.docs() for f in self.fields) or "none"
        else:
            self.reader = spec["reader"]
            self.fields_doc = spec["fields"]


def step_of(spec):
    return None if spec in (None, "none") else Step(spec)


class Message:
    def __init__(self, name, opcode, wire, fields=(), reply=None, check=False, operation=None, step=None,
                 session=False, view=False, request=True):
        self.name, self.opcode, self.wire = name, int(opcode), wire
        self.request = request  # where the table declares it: requests below 100, replies from 100
        if (self.opcode < 100) != request:
            raise TableError(f"{name}: opcode {self.opcode} is on the wrong side of 100")
        self.fields = list(fields)  # Arg, in layout order
        self.reply = reply  # a Message, None for a pipelined request or a reply
        self.check = check
        self.operation = operation  # the variant alternative this message carries
        self.step = step
        self.session = session
        self.view = view
        self.call = None


class Call:
    def __init__(self, half, entry, replies):
        known = {"call", "doc", "args", "returns", "message", "messages", "reply", "step", "lift", "note"}
        unknown = set(entry) - known
        if unknown:
            raise TableError(f"call {entry.get('call')}: unknown keys {sorted(unknown)}")
        self.half = half
        self.name = entry["call"]
        self.doc = entry.get("doc", "")
        self.args = [Arg(name, spec) for name, spec in (entry.get("args") or {}).items()]
        self.returns = entry.get("returns")
        self.step = step_of(entry.get("step"))
        self.note = entry.get("note", "none: read at the end of a run")
        self.lift = entry.get("lift", "read" if self.step is None else "step")
        if self.lift not in LIFTS:
            raise TableError(f"call {self.name}: lift: expected one of {sorted(LIFTS)}, found '{self.lift}'")
        reply = None
        if self.returns:
            if "reply" not in entry or entry["reply"] not in replies:
                raise TableError(f"call {self.name}: returns a value, so it names a reply declared under replies")
            reply = replies[entry["reply"]]
        elif "reply" in entry:
            raise TableError(f"call {self.name}: a reply without `returns`")
        if "messages" in entry:
            if len(self.args) != 1 or self.returns:
                raise TableError(f"call {self.name}: one message per alternative needs one variant argument, no reply")
            self.messages = [
                Message(name, m["opcode"], m["wire"], check=m.get("check", False), operation=m["operation"],
                        step=step_of(m.get("step"))) for name, m in entry["messages"].items()
            ]
        else:
            m = entry["message"]
            self.messages = [Message(m["name"], m["opcode"], m["wire"], self.args, reply, step=self.step)]
        for message in self.messages:
            message.call = self

    @property
    def pipelined(self):
        return self.returns is None

    @property
    def interface(self):
        return "Device" if self.half == "device" else "Model"

    def signature(self, in_api=False):
        params = ", ".join(f"{arg.api_type(in_api)} {arg.name}" for arg in self.args)
        return f"{self.result_type(in_api)} {self.name}({params})"

    def result_type(self, in_api=False):
        if self.pipelined:
            return "Status"
        returns = self.returns[len("api::"):] if in_api and self.returns.startswith("api::") else self.returns
        return f"Result<{returns}>"


class Table:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            raw = yaml.safe_load(f)
        protocol = raw["protocol"]
        self.version, self.layout_hash = int(protocol["version"]), int(protocol["layout_hash"])
        self.replies = {}
        self.messages = []
        for side in ("requests", "replies"):
            for name, m in raw["session"][side].items():
                self.messages.append(Message(name, m["opcode"], m["wire"], session=True, request=side == "requests"))
        for name, m in raw["replies"].items():
            fields = [Arg(field, spec) for field, spec in m["fields"].items()]
            reply = Message(name, m["opcode"], m["wire"], fields, check=m.get("check", False), view=m.get("view", False),
                            request=False)
            self.replies[name] = reply
            self.messages.append(reply)
        self.calls = [Call("device", c, self.replies) for c in raw["device"]]
        self.calls += [Call("model", c, self.replies) for c in raw["model"]]
        for call in self.calls:
            self.messages.extend(call.messages)
        self.messages.sort(key=lambda m: (m.opcode >= 100, m.opcode))
        seen = {}
        for m in self.messages:
            for key in (m.opcode, m.name, m.wire):
                if key in seen:
                    raise TableError(f"{m.name}: {key} is also {seen[key]}'s")
                seen[key] = m.name

    def half(self, half):
        return [c for c in self.calls if c.half == half]

    def steps(self):
        """(step, call) for every step, in the table's order: the order of the step registry."""
        return [(m.step, c) for c in self.calls for m in c.messages if m.step]


def comment(text, indent):
    if not text:
        return ""
    width = 100 - indent - 3
    return "".join(f"{' ' * indent}// {line}\n" for line in textwrap.wrap(" ".join(text.split()), width))


HEADER = "// Generated by harness/api/generate_calls.py from harness/api/calls.yaml: edit the table, not this.\n"


def api_header(table):
    out = [HEADER, "#pragma once\n\n", '#include "api/call_types.h"\n\n', "namespace tidemark::api {\n"]
    for half, what in (("device", "The device half of the client API (api/device.h)."),
                       ("model", "The model half of the client API (api/model.h).")):
        cls = "DeviceCalls" if half == "device" else "ModelCalls"
        out.append(f"\n// {what}\nclass {cls} {{\n public:\n  virtual ~{cls}() = default;\n")
        for call in table.half(half):
            out.append(comment(call.doc, 2))
            out.append(f"  virtual {call.signature(in_api=True)} = 0;\n")
        out.append("};\n")
    out.append("\n}  // namespace tidemark::api\n")
    out.append("\n// Every call of the model half declared as an override, for the class that carries them out\n")
    out.append("// (host::ModelHost): a call added to the table is then one body to write.\n")
    out.append("#define TIDEMARK_MODEL_CALLS_OVERRIDDEN \\\n")
    out.append(" \\\n".join(f"  {call.signature()} override;" for call in table.half("model")))
    out.append("\n")
    return "".join(out)


def field_init(message):
    """The request message made from the call's arguments."""
    return ", ".join(f".{arg.name} = {arg.name}" for arg in message.fields)


def wire_messages_header(table):
    out = [HEADER, "// Included by wire/messages.h, after the session's own messages.\n#pragma once\n\n",
           "namespace tidemark::wire {\n\n// The replies of calls.\n"]
    for reply in table.replies.values():
        out.append(f"struct {reply.name} {{\n  static constexpr Opcode kOpcode = Opcode::{reply.name};\n")
        for f in reply.fields:
            out.append(f"  {f.type} {f.name}{{}};\n")
        names = ", ".join(f"m.{f.name}" for f in reply.fields)
        out.append(f"  static auto fields(auto& m) {{ return std::tie({names}); }}\n")
        if reply.check:
            out.append("  Status check() const;  // wire/messages.cpp\n")
        out.append("};\n")
    out.append("\n// The requests of calls.\n")
    for call in table.calls:
        for m in call.messages:
            if m.operation:
                out.append(f"struct {m.name} : OperationMessage<Opcode::{m.name}, {m.operation}> {{\n")
                if m.check:
                    out.append("  Status check() const;  // wire/messages.cpp\n")
                out.append("};\n")
                continue
            reply = m.reply.name if m.reply else "NoReply"
            out.append(f"struct {m.name} {{  // {call.interface}::{call.name}\n")
            out.append(f"  static constexpr Opcode kOpcode = Opcode::{m.name};\n  using Reply = {reply};\n")
            for f in m.fields:
                out.append(f"  {f.type} {f.name}{{}};\n")
            if len(m.fields) == 1 and m.fields[0].flatten:
                f = m.fields[0]
                out.append(f"  static auto fields(auto& m) {{ return {f.type}::fields(m.{f.name}); }}\n")
            else:
                if any(f.flatten for f in m.fields):
                    raise TableError(f"{m.name}: only a call's one argument may be flattened")
                names = ", ".join(f"m.{f.name}" for f in m.fields)
                out.append(f"  static auto fields({'auto& m' if names else 'auto&'}) {{ return std::tie({names}); }}\n")
            out.append("};\n")
    out.append("\n// The message that carries an operation.\ntemplate <class Operation>\nstruct MessageOfOperation;\n")
    for call in table.calls:
        for m in call.messages:
            if m.operation:
                out.append(f"template <>\nstruct MessageOfOperation<{m.operation}> {{\n  using type = {m.name};\n}};\n")
    out.append("template <class Operation>\nusing MessageOf = typename MessageOfOperation<Operation>::type;\n")
    out.append("\n}  // namespace tidemark::wire\n")
    return "".join(out)


def wire_opcodes_header(table):
    out = [HEADER, "// Included by wire/messages.h.\n#pragma once\n\n",
           "// name, opcode, wire name: every message. Requests are below 100, replies from 100.\n",
           "#define TIDEMARK_WIRE_MESSAGES(X) \\\n"]
    out.append(" \\\n".join(f'  X({m.name}, {m.opcode}, "{m.wire}")' for m in table.messages))
    out.append("\n\n#include <cstdint>\n\nnamespace tidemark::wire {\n\n")
    out.append("// The protocol's version and the hash of the layout it was released with (the table's\n")
    out.append("// `protocol`, where what each version changed is written).\n")
    out.append(f"inline constexpr uint16_t kProtocolVersion = {table.version};\n")
    out.append(f"inline constexpr uint64_t kProtocolLayoutHash = 0x{table.layout_hash:016x};\n")
    out.append("\n}  // namespace tidemark::wire\n")
    return "".join(out)


def direct_reply(call):
    """The reply's one field, when it is of the call's own type; None when wire/replies.h converts."""
    fields = call.messages[0].reply.fields
    if len(fields) == 1 and fields[0].type == call.returns:
        return fields[0].name
    return None


def client_header(table):
    out = [HEADER, "// Included by wire/client.h.\n#pragma once\n\nnamespace tidemark::wire {\n\n",
           "// The client API's stubs: each call as the request that carries it, posted (pipelined) or\n",
           "// called (its reply read back). Client gives post(), call(), call_frame(), post_operation()\n",
           "// and kept() (a view reply's bytes held until the next call).\n",
           "template <class Client>\nclass ClientCalls : public api::Device, public api::Model {\n public:\n"]
    for call in table.calls:
        out.append(f"  {call.signature()} override {{\n")
        if call.messages[0].operation:
            out.append(f"    return client().post_operation({call.args[0].name});\n  }}\n")
            continue
        m = call.messages[0]
        request = f"{m.name}{{{field_init(m)}}}"
        if call.pipelined:
            out.append(f"    return client().post({request});\n  }}\n")
        elif m.reply.view:
            out.append(f"    TIDEMARK_TRY(frame, client().call_frame({request}));\n")
            out.append(f"    TIDEMARK_TRY(reply, decode<{m.reply.name}>(frame));\n")
            out.append(f"    return client().kept(reply.{m.reply.fields[0].name});\n  }}\n")
        else:
            out.append(f"    TIDEMARK_TRY(reply, client().call({request}));\n")
            field = direct_reply(call)
            if field:
                out.append(f"    return std::move(reply.{field});\n  }}\n")
            else:
                out.append(f"    return value_of(std::move(reply), std::type_identity<{call.returns}>{{}});\n  }}\n")
    out.append("\n private:\n  Client& client() { return static_cast<Client&>(*this); }\n};\n")
    out.append("\n}  // namespace tidemark::wire\n")
    return "".join(out)


def dispatch_header(table):
    out = [HEADER, "// Included by wire/server.cpp: one handler per call's request, carried out by the session's\n",
           "// device or by its model host.\n#pragma once\n\nnamespace tidemark::wire::dispatch {\n\n",
           "struct Served {\n  api::Device& device;\n  api::Model& model;\n};\n\n"]
    for call in table.calls:
        target = f"to.{call.half}"
        for m in call.messages:
            if m.operation:
                out.append(f"inline Status serve(Served& to, const {m.name}& m) {{ return {target}.{call.name}(m.op); }}\n")
                continue
            if len(call.args) == 1 and call.args[0].flatten:
                args = f"m.{call.args[0].name}"
            else:
                args = ", ".join(f"m.{a.name}" for a in call.args)
            param = f"const {m.name}&{' m' if call.args else ''}"
            if call.pipelined:
                out.append(f"inline Status serve(Served& to, {param}) {{ return {target}.{call.name}({args}); }}\n")
                continue
            out.append(f"inline Result<{m.reply.name}> serve(Served& to, {param}) {{\n")
            out.append(f"  TIDEMARK_TRY(value, {target}.{call.name}({args}));\n")
            field = direct_reply(call)
            if field:
                out.append(f"  return {m.reply.name}{{.{field} = std::move(value)}};\n}}\n")
            else:
                out.append("  return reply_of(std::move(value));\n}\n")
    out.append("\n}  // namespace tidemark::wire::dispatch\n")
    return "".join(out)


def forwarding_header(table):
    out = [HEADER, "// Included by host/host_thread.h.\n#pragma once\n\nnamespace tidemark::host {\n\n",
           "// The model API forwarded: each call handed to Host::forward as a callable on the api::Model\n",
           "// that carries it out (the host thread runs it on its model host, after its queue).\n",
           "template <class Host>\nclass ForwardedModel : public api::Model {\n public:\n"]
    for call in table.half("model"):
        args = ", ".join(a.name for a in call.args)
        capture = "&" if call.args else ""
        out.append(f"  {call.signature()} override {{\n")
        out.append(f"    return host().forward([{capture}](api::Model& model) {{ return model.{call.name}({args}); }});\n  }}\n")
    out.append("\n private:\n  Host& host() { return static_cast<Host&>(*this); }\n};\n")
    out.append("\n}  // namespace tidemark::host\n")
    return "".join(out)


def mocks_header(table):
    out = [HEADER, "// Strict gMock mocks of both halves of the client API, for unit tests (wrap them in\n",
           "// ::testing::StrictMock: an unexpected call fails the test).\n#pragma once\n\n",
           "#include <gmock/gmock.h>\n\n#include \"api/device.h\"\n#include \"api/model.h\"\n\n",
           "namespace tidemark::api {\n"]
    for half, cls, base in (("device", "MockDevice", "Device"), ("model", "MockModel", "Model")):
        out.append(f"\nclass {cls} : public {base} {{\n public:\n")
        for call in table.half(half):
            params = ", ".join(f"{a.api_type(True)} {a.name}" for a in call.args)
            out.append(f"  MOCK_METHOD(({call.result_type(True)}), {call.name}, ({params}), (override));\n")
        out.append("};\n")
    out.append("\n}  // namespace tidemark::api\n")
    return "".join(out)


def lifts_by_itself(step, call):
    """Whether a one-call step lifts from its request with no help: numbers and flags, one field
    an argument (a flattened argument or a memory type needs a lift() overload)."""
    return (not any(a.flatten for a in call.args) and len(step.fields) == len(call.args)
            and all(f.kind in ("u32", "u64", "bool") for f in step.fields))


def lift_header(table):
    out = [HEADER, "// Included by reduce/lift.cpp: what each request of a recording becomes.\n#pragma once\n\n",
           "namespace tidemark::reduce {\n\n",
           "// A request lifted to its step (a lift() overload in reduce/lift.cpp), skipped (the session's\n",
           "// frames and the runner's read-backs) or refused.\n",
           "template <class Lifting>\nStatus lift_request(Lifting& lifting, const wire::FrameView& frame) {\n",
           "  switch (frame.op) {\n"]
    skipped = [m for m in table.messages if m.request and m.session]
    skipped += [m for c in table.calls if c.lift == "read" for m in c.messages]
    for m in skipped:
        out.append(f"    case wire::Opcode::{m.name}:\n")
    out.append("      return {};\n")
    for call in table.calls:
        if call.lift != "step":
            continue
        for m in call.messages:
            out.append(f"    case wire::Opcode::{m.name}: {{\n")
            if m.step.one_call and not m.step.fields:
                # A call without arguments: its empty payload checked, its step has no fields.
                out.append("      TIDEMARK_CHECK(wire::check_payload(frame));\n")
                out.append(f'      lifting.steps.push_back("  - {m.step.name}: {{}}");\n')
                out.append("      return {};\n    }\n")
                continue
            out.append(f"      TIDEMARK_TRY(message, wire::decode<wire::{m.name}>(frame));\n")
            if m.step.one_call and lifts_by_itself(m.step, call):
                # A one-call step of numbers and flags: the request's fields are the step's.
                keys = ", ".join(f"{f.name}: {{}}" for f in m.step.fields)
                values = ", ".join(f"message.{a.name}" for a in call.args)
                out.append(f'      lifting.steps.push_back(fmt::format("  - {m.step.name}: {{{{{keys}}}}}", {values}));\n')
                out.append("      return {};\n    }\n")
                continue
            out.append("      return lift(lifting, message);\n    }\n")
    lifted = [c.step.name for c in table.calls if c.step and c.lift in ("step", "read")]
    lifted = ", ".join(lifted[:-1]) + " and " + lifted[-1]
    out.append("    default:\n")
    out.append(f'      return lifting.refuse(std::string(wire::to_string(frame.op)) + ": only {lifted} '
               'calls lift to steps; reduce the scenario file itself");\n')
    out.append("  }\n}\n\n}  // namespace tidemark::reduce\n")
    return "".join(out)


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def steps_header(table):
    out = [HEADER, "// Included by scenario/steps.h.\n#pragma once\n\n",
           "// X(type, \"yaml_key\", reader, target, \"fields, as the docs row writes them\"): every step that\n",
           "// drives a call, in the table's order.\n#define TIDEMARK_STEPS(X) \\\n"]
    rows = [f"  X({step.type}, \"{step.name}\", {step.reader}, {step.target}, {c_string(step.fields_doc)})"
            for step, _ in table.steps()]
    out.append(" \\\n".join(rows))
    out.append("\n")
    return "".join(out)


FIELD_TYPES = {"u32": "IntField", "u64": "IntField", "bool": "bool", "memory_type": "kernel::MemoryType"}
FIELD_DEFAULTS = {"bool": "false", "memory_type": "kernel::MemoryType::Unknown"}


def one_call_steps(table):
    return [(step, call) for step, call in table.steps() if step.one_call]


def step_types_header(table):
    out = [HEADER, "// Included by scenario/scenario.h: the steps that are one call with its arguments and\n",
           "// nothing more (an integer may be an expression over loop variables).\n#pragma once\n\n",
           "namespace tidemark::scenario {\n"]
    for step, call in one_call_steps(table):
        out.append(f"\n// `{step.name}`: {call.interface}::{call.name}.\nstruct {step.type} {{\n")
        out.append(f"  static constexpr std::string_view kCall = \"{call.name}\";\n")
        for f in step.fields:
            value = FIELD_DEFAULTS.get(f.kind)
            if f.kind == "bool" and f.default is not None:
                value = str(f.default).lower()
            out.append(f"  {FIELD_TYPES[f.kind]} {f.name}{' = ' + value if value else ''};\n")
        out.append("};\n")
    out.append("\n}  // namespace tidemark::scenario\n")
    return "".join(out)


def step_readers_header(table):
    out = [HEADER, "// Included by scenario/schema_steps.cpp: the readers of the steps that are one call.\n",
           "#pragma once\n\nnamespace tidemark::scenario::schema {\n"]
    for step, _ in one_call_steps(table):
        if not step.fields:
            continue
        keys = ", ".join(f'"{f.name}"' for f in step.fields)
        out.append(f"\ntemplate <>\nResult<StepKind> StepReader::plain<{step.type}>(const Value& value) {{\n")
        out.append(f"  TIDEMARK_TRY(entries, read_.fields(value, \"{step.name}\", {{{keys}}}));\n")
        out.append(f"  {step.type} step;\n")
        for f in step.fields:
            if f.kind in ("u32", "u64"):
                read = f"values_.int_field({f.rule})"
                if f.default is not None:
                    out.append(f"  step.{f.name} = values_.zero_field(value);\n")
            elif f.kind == "bool":
                read = "[&](const Value& v) { return read_.boolean(v); }"
            else:
                read = "[&](const Value& v) { return values_.memory_type(v); }"
            need = "optional" if f.default is not None else "required"
            out.append(f"  TIDEMARK_CHECK(yaml::{need}(entries, \"{f.name}\", step.{f.name}, {read}));\n")
        out.append("  return step;\n}\n")
    out.append("\n}  // namespace tidemark::scenario::schema\n")
    return "".join(out)


def step_calls_header(table):
    out = [HEADER, "// Included by runner/kinds/executor.cpp: each step that is one call, made. `numbers`\n",
           "// evaluates an integer field and checks it against its width on the wire.\n#pragma once\n\n",
           "namespace tidemark::runner {\n"]
    for step, call in one_call_steps(table):
        out.append(f"\ntemplate <class Numbers>\nStatus call_step([[maybe_unused]] const scenario::{step.type}& step, "
                   f"[[maybe_unused]] const Numbers& numbers, [[maybe_unused]] api::Device& device,\n"
                   f"                 [[maybe_unused]] api::Model& model) {{\n")
        values = []
        for f in step.fields:
            if f.kind in ("u32", "u64"):
                out.append(f"  TIDEMARK_TRY({f.name}, numbers.{f.kind}(step.{f.name}));\n")
                values.append(f.name)
            else:
                values.append(f"step.{f.name}")
        flatten = len(call.args) == 1 and call.args[0].flatten
        if not flatten and len(values) != len(call.args):
            raise TableError(f"step {step.name}: {len(values)} fields for {len(call.args)} arguments of {call.name}")
        args = "{" + ", ".join(values) + "}" if flatten else ", ".join(values)
        out.append(f"  return {call.half}.{call.name}({args});\n}}\n")
    out.append("\n}  // namespace tidemark::runner\n")
    return "".join(out)


STEP_ROWS_END = "<!-- end of the {target} steps: rows of steps that are one call are generated -->"


def docs_with_step_rows(text, table):
    """Each one-call step's row in docs/scenarios.md rewritten from the table, in place; a step
    with no row yet gets one at the end of its target's table."""
    lines = text.split("\n")
    for step, _ in one_call_steps(table):
        row = f"| `{step.name}` | {step.fields_doc} | {step.doc} |"
        found = [i for i, line in enumerate(lines) if line.startswith(f"| `{step.name}` |")]
        if found:
            lines[found[0]] = row
            continue
        end = STEP_ROWS_END.format(target=step.target)
        if end not in lines:
            raise TableError(f"the docs file has no '{end}' line for step {step.name}")
        lines.insert(lines.index(end), row)
    return "\n".join(lines)


def docs_table(table):
    rows = [DOCS_BEGIN, "",
            "| Call | Half | Arguments | Reply | Request (opcode) | Step |",
            "|---|---|---|---|---|---|"]
    for call in table.calls:
        args = ", ".join(f"`{a.name}`" for a in call.args) or "none"
        if call.pipelined:
            reply = "none (pipelined)"
        else:
            reply = f"`{call.messages[0].reply.wire}` ({call.messages[0].reply.opcode})"
        requests = ", ".join(f"`{m.wire}` ({m.opcode})" for m in call.messages)
        steps = [m.step.name for m in call.messages if m.step]
        step = ", ".join(f"`{s}`" for s in steps) or call.note
        rows.append(f"| `{call.name}` | {call.half} | {args} | {reply} | {requests} | {step} |")
    rows += ["", DOCS_END]
    return "\n".join(rows)


def docs_with_table(text, table):
    """The calls table, where the file has one, and the rows of the steps, where it has them."""
    begin, end = text.find(DOCS_BEGIN), text.find(DOCS_END)
    if begin >= 0 and end > begin:
        text = text[:begin] + docs_table(table) + text[end + len(DOCS_END):]
    if any(STEP_ROWS_END.format(target=target) in text for target in STEP_TARGETS):
        text = docs_with_step_rows(text, table)
    return text


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", required=True)
    parser.add_argument("--out", help="the folder to write calls/*.h into")
    parser.add_argument("--docs", nargs="*", default=[], help="rewrite the generated tables of these Markdown files")
    parser.add_argument("--check-docs", nargs="*", default=[], help="fail if these Markdown files' tables are stale")
    options = parser.parse_args()
    try:
        table = Table(options.table)
        if options.out:
            for name, make in (("api.h", api_header), ("wire_opcodes.h", wire_opcodes_header),
                               ("wire_messages.h", wire_messages_header),
                               ("wire_client.h", client_header), ("wire_dispatch.h", dispatch_header),
                               ("host_forwarding.h", forwarding_header), ("mocks.h", mocks_header),
                               ("lift.h", lift_header), ("steps.h", steps_header),
                               ("step_types.h", step_types_header), ("step_readers.h", step_readers_header),
                               ("step_calls.h", step_calls_header)):
                write_if_changed(os.path.join(options.out, "calls", name), make(table))
        for path, rewrite in [(p, True) for p in options.docs] + [(p, False) for p in options.check_docs]:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            current = docs_with_table(text, table)
            if rewrite:
                write_if_changed(path, current)
            elif current != text:
                print(f"{path}: a table generated from the calls is stale: run harness/api/generate_calls.py "
                      f"--table {options.table} --docs {path}", file=sys.stderr)
                return 1
    except (TableError, KeyError, yaml.YAMLError) as error:
        print(f"{options.table}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
