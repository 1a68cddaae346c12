"""Tools that keep lasting knowledge (PROTOCOL §9 learn/promote, §10 facts, §11).

One home per fact: memory_remember refuses a fact that already stands
somewhere, memory_replace corrects it where it stands, memory_retire takes it
out with a trace in the retirement log. The §10 functions live in
`memtier.commands.facts`, imported inside each call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from mcp_types import CallToolResult
from pydantic import Field

from memtier.mcp.hints import writes
from memtier.mcp.models import WriteOutput
from memtier.mcp.tools_session import write_output

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from memtier.mcp.runtime import ToolRuntime
    from memtier.workspace import Workspace

FileParam = Annotated[
    str,
    Field(description="MEMORY.md or a WARM file (memory/semantic/*.md, memory/procedural/*.md)."),
]
OldParam = Annotated[
    str, Field(description="Text matching exactly one line of the file (case-sensitive).")
]


def register(server: MCPServer, rt: ToolRuntime) -> None:
    def memory_learn(
        kind: Annotated[
            Literal["error", "learning", "feature"],
            Field(
                description="error: a mistake and its fix; learning: a lesson; "
                "feature: something the person asked for."
            ),
        ],
        text: Annotated[str, Field(description="One line; secrets are redacted.")],
        pin: Annotated[bool, Field(description="Keep it from archival (#pinned).")] = False,
    ) -> Annotated[CallToolResult, WriteOutput]:
        """Record a mistake, a lesson or a feature request in .learnings/ (SCRATCH).

        Use right after a mistake is corrected or a lesson is learned. Repeating a
        lesson in the same file counts its recurrence (the weekly review flags
        recurring ones for promotion); one already in another .learnings file is
        refused.
        """

        def body(ws: Workspace) -> WriteOutput:
            from memtier.commands.learnings import learn

            result = learn(ws, kind, text, pin)
            return write_output(result, result.redacted)

        return rt.call("memory_learn", body)

    def memory_remember(
        text: Annotated[str, Field(description="The fact, one line (a howto may be a block).")],
        kind: Annotated[
            str | None,
            Field(
                description="Its home: infrastructure, preference, project, decision, "
                "lesson, howto:<topic>, hot (MEMORY.md) or event (today's note)."
            ),
        ] = None,
        file: Annotated[
            str | None, Field(description="Instead of kind: the HOT or WARM file to add it to.")
        ] = None,
        section: Annotated[
            str | None, Field(description="Add under '## <section>' (created if missing).")
        ] = None,
        tags: Annotated[
            list[str], Field(description="Tags for a new howto file, from the vocabulary.")
        ] = [],  # noqa: B006 - pydantic copies defaults
    ) -> Annotated[CallToolResult, WriteOutput]:
        """Store a lasting fact in its one home (give kind, or file).

        Use for what must outlive the session: a host, a preference, a decision and
        its reason, a procedure. Refused when the fact, or a near-duplicate, already
        stands somewhere (the answer names file:line: correct it there with
        memory_replace), or when MEMORY.md would grow past its cap.
        """

        def body(ws: Workspace) -> WriteOutput:
            from memtier.commands.facts import remember

            to = rt.resolve(ws, file) if file is not None else None
            result = remember(ws, text, kind=kind, to=to, section=section, tags=tuple(tags))
            return write_output(result, _redacted(result))

        return rt.call("memory_remember", body)

    def memory_replace(
        old: OldParam,
        new: Annotated[str, Field(description="The corrected text for that line.")],
        file: FileParam,
        reason: Annotated[str | None, Field(description="Why it changed (logged).")] = None,
    ) -> Annotated[CallToolResult, WriteOutput]:
        """Correct a fact where it stands: the one line matching old becomes new.

        The old line goes to the retirement log (memory/archive/retired.md), so
        nothing is lost. Zero or several matches: refused, listing the candidate
        lines with their numbers; quote more of the line and call again.
        """

        def body(ws: Workspace) -> WriteOutput:
            from memtier.commands.facts import replace_fact

            result = replace_fact(ws, old, new, in_file=rt.resolve(ws, file), reason=reason)
            return write_output(result, _redacted(result))

        return rt.call("memory_replace", body)

    def memory_retire(
        old: OldParam,
        file: FileParam,
        reason: Annotated[str, Field(description="Why the fact no longer holds (logged).")],
    ) -> Annotated[CallToolResult, WriteOutput]:
        """Remove a fact that no longer holds, with a trace.

        The one line matching old leaves the file and is recorded, with the
        reason, in memory/archive/retired.md (searchable with tiers=['archive']).
        """

        def body(ws: Workspace) -> WriteOutput:
            from memtier.commands.facts import retire_fact

            result = retire_fact(ws, old, in_file=rt.resolve(ws, file), reason=reason)
            return write_output(result, _redacted(result))

        return rt.call("memory_retire", body)

    def memory_verify(
        files: Annotated[
            list[str], Field(description="WARM files you have checked against reality.")
        ] = [],  # noqa: B006 - pydantic copies defaults
        stale: Annotated[
            bool, Field(description="Every WARM file the health check calls stale.")
        ] = False,
    ) -> Annotated[CallToolResult, WriteOutput]:
        """Mark WARM files as checked today (their last_verified), after checking them.

        Call only once the facts in them were confirmed (or corrected with
        memory_replace / memory_retire): the date tells the next reader they can
        be trusted. Returns each file with its previous date.
        """

        def body(ws: Workspace) -> WriteOutput:
            from memtier.commands.facts import verify_files

            paths = tuple(rt.resolve(ws, name) for name in files)
            return write_output(verify_files(ws, paths, stale=stale))

        return rt.call("memory_verify", body)

    def memory_promote(
        lesson: Annotated[str, Field(description="The lesson, as it stands in .learnings/.")],
        file: Annotated[
            str,
            Field(
                description="WARM file to copy it into: memory/semantic/<name>.md or "
                "memory/procedural/<topic>.md (created if missing)."
            ),
        ],
        confirm: Annotated[
            bool, Field(description="false (default): only show the plan; true: promote.")
        ] = False,
    ) -> Annotated[CallToolResult, WriteOutput]:
        """Promote an approved lesson from .learnings/ into its one WARM home.

        Call first without confirm to see the plan, and ask the person; then call
        again with confirm=true. The [PROMOTE-CANDIDATE] flag leaves the source
        line and the target's last_verified becomes today.
        """

        def body(ws: Workspace) -> WriteOutput:
            from memtier.commands.learnings import promote

            result = promote(ws, lesson, rt.resolve(ws, file), confirm)
            out = write_output(result)
            if not confirm:
                out.text = out.text.replace("with --yes", "with confirm=true")
            return out

        return rt.call("memory_promote", body)

    server.add_tool(memory_learn, name="memory_learn", annotations=writes("Record a lesson"))
    server.add_tool(memory_remember, name="memory_remember", annotations=writes("Remember a fact"))
    server.add_tool(
        memory_replace,
        name="memory_replace",
        annotations=writes("Correct a fact", destructive=True),
    )
    server.add_tool(
        memory_retire, name="memory_retire", annotations=writes("Retire a fact", destructive=True)
    )
    server.add_tool(
        memory_verify,
        name="memory_verify",
        annotations=writes("Mark files verified", idempotent=True),
    )
    server.add_tool(memory_promote, name="memory_promote", annotations=writes("Promote a lesson"))


def _redacted(result: object) -> dict[str, int]:
    counts = getattr(result, "redacted", None)
    return dict(counts) if isinstance(counts, dict) else {}
