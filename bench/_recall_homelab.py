"""The home-lab workspace of `bench/recall`: an agent's memory after seven months.

WARM files of facts (hosts, services, preferences, decisions, procedures) and
212 daily notes of routine events, incidents, recurring chores, purchases and
meetings (irregular verb forms), project steps spread over several notes, and
a few decisions pasted into daily notes as task copies (the WARM line is the
answer). All content is invented; everything comes from a fixed seed.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path

from _recall_common import TODAY, Question, ask, date_phrase, relative_days

FIRST_DAY = date(2026, 5, 1)
DAYS = 212


# (name, what it is, synonyms used in questions)
SERVICES = [
    ("qdrant", "vector database", "embedding store"),
    ("synapse", "matrix homeserver", "chat server"),
    ("coturn", "TURN relay for calls", "call relay"),
    ("postgres", "main SQL database", "relational db"),
    ("redis", "cache and job queue", "in-memory cache"),
    ("nginx", "reverse proxy", "web front end"),
    ("grafana", "dashboards", "monitoring dashboards"),
    ("prometheus", "metrics scraper", "metrics collector"),
    ("gitea", "git forge", "code hosting"),
    ("jellyfin", "media server", "video streaming"),
    ("nextcloud", "file sync", "cloud drive"),
    ("vaultwarden", "password manager", "password vault"),
    ("minio", "S3 object storage", "object store"),
    ("mosquitto", "MQTT broker", "message broker for sensors"),
    ("pihole", "DNS ad blocker", "network-wide DNS filter"),
    ("syncthing", "folder sync between laptops", "peer file sync"),
    ("immich", "photo library", "photo backup"),
    ("paperless", "document archive", "scanned paperwork"),
    ("traefik", "edge router for containers", "container router"),
    ("loki", "log aggregation", "central logs"),
    ("ollama", "local LLM runner", "language model host"),
    ("woodpecker", "CI runner", "build pipeline"),
    ("samba", "Windows file shares", "SMB shares"),
    ("uptime-kuma", "uptime monitor", "status checks"),
    ("home-assistant", "home automation", "smart home hub"),
]
HOSTS = ["atlas", "borealis", "cygnus", "draco", "eridani", "fornax", "gemma", "hydra"]
ROUTINE = [
    "Restarted {s} after the nightly update; it came back in {n} seconds.",
    "Checked {s} logs, nothing unusual.",
    "{S} memory use at {n}%, fine.",
    "Updated the {s} container image to the latest tag.",
    "Backup of {s} data finished in {n} minutes.",
    "Looked at {s} dashboards for a while, all green.",
    "Pruned old {s} images to free disk space.",
    "{S} was slow for a few minutes during the backup window.",
]
INCIDENTS = [
    # (event text, question, service)
    (
        "{s} refused connections because the container ran out of file descriptors; raised "
        "ulimit nofile to 65536.",
        "why did {s} stop accepting connections?",
    ),
    (
        "{s} crashed at startup after the upgrade: the config key 'listen_addr' was renamed "
        "to 'bind_address'.",
        "what broke {s} when it was upgraded?",
    ),
    (
        "{s} lost its volume after a compose down -v; restored it from the restic snapshot.",
        "how was the {s} data recovered after it vanished?",
    ),
    (
        "{s} TLS handshake errors traced to an expired intermediate certificate on the proxy.",
        "what caused the handshake failures with {s}?",
    ),
    (
        "{s} filled the root partition with debug logs; set log level back to info and added "
        "logrotate.",
        "why was the disk full because of {s}?",
    ),
    (
        "{s} kept timing out on DNS lookups until pihole was given a second upstream resolver.",
        "what fixed the name resolution timeouts of {s}?",
    ),
]
CHORES = [
    ("Renewed the wildcard certificate for {s}.", "when was the certificate for {s} last renewed?"),
    (
        "Rotated the {s} admin password and stored it in vaultwarden.",
        "when did we last change the admin password of {s}?",
    ),
    (
        "Ran the quarterly restore test for {s} from restic; restore worked.",
        "when did the most recent restore test of {s} happen?",
    ),
]
PREFERENCES = [
    (
        "Commit messages are written in the imperative mood, under 72 characters.",
        "how should commit message subjects be phrased?",
    ),
    ("Never deploy on Fridays after noon.", "is it fine to ship changes friday afternoon?"),
    (
        "Prefer Podman only for rootless experiments; production stays on Docker.",
        "which container engine do we use in production?",
    ),
    (
        "Replies to the user stay short: three sentences unless asked for detail.",
        "how long should my answers to the user be?",
    ),
    ("Use British spelling in documentation.", "which spelling convention do the docs use?"),
    ("Times in notes are written in UTC with an offset.", "what timezone should notes use?"),
    ("Shell scripts start with set -euo pipefail.", "what options must every bash script set?"),
    (
        "Secrets never go into git; they live in vaultwarden.",
        "where are credentials kept instead of the repository?",
    ),
    ("Ask before deleting anything under /srv.", "can I remove files in /srv without asking?"),
    (
        "Monitoring alerts go to the ops room on matrix, never to email.",
        "where should alert notifications be sent?",
    ),
    ("Python projects use uv and ruff; no poetry.", "which python packaging tool is preferred?"),
    (
        "Screenshots in reports are cropped to the relevant window.",
        "how should screenshots in reports be prepared?",
    ),
    (
        "Dark mode everywhere, including the grafana dashboards.",
        "which colour theme does the user want?",
    ),
    (
        "Meetings are summarised as bullet lists with owners and dates.",
        "what format do meeting summaries follow?",
    ),
    (
        "Keep at most three active tasks in the working buffer.",
        "how many tasks may be active at once?",
    ),
]
DECISIONS = [
    (
        "chose postgres over mysql for gitea because restic backups of it were already tested",
        "why is gitea on postgres rather than mysql?",
    ),
    ("moved qdrant to cygnus for its NVMe disks", "what was the reason qdrant changed hosts?"),
    (
        "dropped watchtower; image updates are applied by hand after reading changelogs",
        "why are container updates no longer automatic?",
    ),
    (
        "coturn stays on a public VPS since calls failed behind the home NAT",
        "why does the call relay run outside the home network?",
    ),
    ("loki replaced the ELK stack, which needed 8 GB of RAM", "why was elasticsearch retired?"),
    (
        "backups go to a Hetzner storage box plus an offline USB disk",
        "where are backup copies stored?",
    ),
    (
        "tailscale ACLs instead of port forwarding for remote access",
        "how is remote access to the home lab done?",
    ),
    ("ollama runs only on hydra, the machine with the GPU", "which host runs local llms and why?"),
    (
        "nextcloud kept, seafile rejected for lack of calendar sync",
        "why did we not switch to seafile?",
    ),
    (
        "woodpecker CI chosen over drone after the drone license change",
        "why was drone replaced as the ci system?",
    ),
    (
        "home-assistant runs in a VM, not a container, for USB zigbee passthrough",
        "why is the smart home hub a virtual machine?",
    ),
    (
        "pihole runs twice, on atlas and borealis, so DNS survives a reboot",
        "why are there two dns ad blockers?",
    ),
    (
        "immich replaced google photos; originals stay on minio",
        "where do the original photos live now?",
    ),
    (
        "nginx kept in front of traefik only for the legacy vhosts",
        "why is nginx still in front of traefik?",
    ),
    (
        "uptime-kuma checks run every 60 seconds to stay under rate limits",
        "how often do uptime checks run?",
    ),
]
PROCEDURES = [
    (
        "Rotate the synapse signing key",
        "docker exec synapse generate_signing_key -o /data/key",
        "how do I create a new signing key for the chat server?",
    ),
    (
        "Reload nginx without downtime",
        "nginx -t && systemctl reload nginx",
        "what's the safe way to apply a reverse proxy config change?",
    ),
    (
        "Restore a postgres dump",
        "pg_restore -d gitea /backup/gitea.dump",
        "how to load a database dump back into postgres?",
    ),
    (
        "Add a tailscale node",
        "tailscale up --authkey <key> --advertise-tags=tag:server",
        "steps to join a new machine to the tailnet?",
    ),
    (
        "Unban an IP in fail2ban",
        "fail2ban-client set sshd unbanip <ip>",
        "how to lift a fail2ban ban on an address?",
    ),
    (
        "Snapshot qdrant",
        "curl -X POST localhost:6333/collections/notes/snapshots",
        "command to take a snapshot of the embedding store?",
    ),
    (
        "Open a port in ufw",
        "ufw allow 3478/udp comment coturn",
        "how do I allow a port through ufw?",
    ),
    (
        "Rebuild the immich thumbnails",
        "immich admin jobs run thumbnail-generation --all",
        "how do I regenerate photo thumbnails?",
    ),
    (
        "Check restic backups",
        "restic -r sftp:storagebox:/restic check --read-data-subset 5%",
        "how do I verify the backup repository is healthy?",
    ),
    (
        "Renew certificates by hand",
        "certbot renew --cert-name wildcard --force-renewal",
        "how to force a certificate renewal manually?",
    ),
    (
        "Clear the redis queue",
        "redis-cli -n 2 FLUSHDB",
        "how can the job queue in redis be emptied?",
    ),
    (
        "Update pm2 processes",
        "pm2 reload ecosystem.config.js --update-env",
        "how do I restart pm2 apps with new environment variables?",
    ),
    (
        "Mount the samba share",
        "mount -t cifs //atlas/media /mnt/media -o credentials=/root/.smb",
        "how to mount the windows file share on linux?",
    ),
    (
        "Reset a gitea user password",
        "gitea admin user change-password -u <user> -p <pw>",
        "how do I reset someone's password on the git forge?",
    ),
    (
        "Tail loki logs",
        "logcli query '{app=\"synapse\"}' --tail",
        "how can I follow the chat server logs live from the log store?",
    ),
]


CHORE_ON = [
    "what happened with the {s} certificate on {d}?",
    "was the {s} admin password changed on {d}?",
    "did the {s} restore test run on {d}?",
]
# Irregular forms: the note says one form, the question another.
GADGETS = ["thinkpad", "raspberry pi", "ups battery", "nas enclosure", "label printer",
           "zigbee stick", "kvm switch", "poe injector"]  # fmt: skip
GADGET_EVENTS = [
    ("Bought a spare {g} from the refurb shop.", "when did I buy the spare {g}?"),
    ("Sold the old {g} on the forum for half the price.", "when did I sell the old {g}?"),
    ("Lost the manual of the {g}; found a PDF copy.", "when did I lose the {g} manual?"),
]
PEOPLE = ["Dana", "Kofi", "Ines", "Marek", "Yuki"]
TOPICS = ["the VLAN layout", "the backup budget", "the new rack", "the fibre contract"]
PEOPLE_EVENTS = [
    ("Met {p} at the hackspace to go over {t}.", "when did I meet {p} at the hackspace?"),
    ("Wrote a long mail to {p} about {t}.", "when did I write to {p}?"),
    ("{p} taught me how the patch panel is wired.", "when did {p} teach me the patch panel?"),
]
PROJECTS = [
    ("Project lantern", ["ordered the LED strips", "soldered the controller board",
                         "mounted the lights in the hallway"],
     "what were all the steps of project lantern?"),
    ("Project cellar", ["measured the humidity", "installed the dehumidifier",
                        "moved the servers off the floor"],
     "what did we do for project cellar over time?"),
    ("Project orchard", ["planned the sensor grid", "buried the soil probes",
                         "wired the probes to mosquitto"],
     "how did project orchard progress?"),
    ("Migration to IPv6", ["asked the ISP for a prefix", "enabled router advertisements",
                           "switched the DNS records to AAAA"],
     "which stages did the ipv6 migration go through?"),
    ("Kids' tablet setup", ["chose a tablet for the children", "set up parental controls",
                            "added the tablets to the guest VLAN"],
     "what was done to set up the child's tablet?"),
]  # fmt: skip
PASTED = [0, 2, 5, 8, 11]


def build(root: Path) -> list[Question]:
    """Write the workspace under *root* (already initialised) and return the questions."""
    rng = random.Random(20261130)
    questions: list[Question] = []
    sem = root / "memory" / "semantic"
    proc = root / "memory" / "procedural"

    # -- WARM: infrastructure ---------------------------------------------------------
    lines = [
        "# Infrastructure",
        "#tags: networking, docker, ssh",
        "> last_verified: 2026-11-20",
        "",
        "## Hosts",
    ]
    for i, host in enumerate(HOSTS):
        lines.append(f"- {host}: 10.0.{i}.1, Ubuntu 24.04, {rng.choice([16, 32, 64])} GB RAM")
    lines += ["", "## Services"]
    for i, (name, what, synonym) in enumerate(SERVICES):
        host = HOSTS[i % len(HOSTS)]
        port = 3000 + rng.randint(0, 6000)
        lines.append(f"- {name} ({what}) runs on {host}, 10.0.{i % 8}.{10 + i}, port {port}")
        questions.append(
            ask(
                f"which port does the {synonym} {name} listen on?",
                "memory/semantic/infrastructure.md",
                len(lines),
                "fact",
            )
        )
        questions.append(
            ask(
                f"on what machine is {name} hosted?",
                "memory/semantic/infrastructure.md",
                len(lines),
                "fact",
            )
        )
    (sem / "infrastructure.md").write_text("\n".join(lines) + "\n")

    def warm_list(
        name: str, title: str, tags: str, items: list[tuple[str, str]], kind: str, prefix: str = ""
    ) -> None:
        body = [f"# {title}", f"#tags: {tags}", "> last_verified: 2026-11-20", ""]
        for text, question in items:
            body.append(f"- {prefix}{text}")
            questions.append(ask(question, f"memory/semantic/{name}.md", len(body), kind))
        (sem / f"{name}.md").write_text("\n".join(body) + "\n")

    warm_list("preferences", "Preferences", "rules, style, habits", PREFERENCES, "preference")
    decided = [(text, q) for text, q in DECISIONS]
    body = ["# Decisions", "#tags: review, rules", "> last_verified: 2026-11-20", ""]
    for text, question in decided:
        day = FIRST_DAY + timedelta(days=rng.randint(0, DAYS - 1))
        body.append(f"- {day.isoformat()}: {text}.")
        questions.append(ask(question, "memory/semantic/decisions.md", len(body), "decision"))
    (sem / "decisions.md").write_text("\n".join(body) + "\n")

    body = ["# Runbook", "#tags: checklist, troubleshooting", "> last_verified: 2026-11-20", ""]
    for title, command, question in PROCEDURES:
        body += [f"## {title}", f"`{command}`", ""]
        questions.append(ask(question, "memory/procedural/runbook.md", len(body) - 2, "howto"))
    (proc / "runbook.md").write_text("\n".join(body) + "\n")

    # -- COLD: seven months of daily notes ----------------------------------------------
    days: dict[date, list[str]] = {FIRST_DAY + timedelta(days=d): [] for d in range(DAYS)}
    # day, text, question, kind, group (a multi-note answer: one question, several notes)
    pending: list[tuple[date, str, str, str, str]] = []
    services = [s[0] for s in SERVICES]

    def some_day() -> date:
        return FIRST_DAY + timedelta(days=rng.randint(0, DAYS - 1))

    for template, question in INCIDENTS:
        for name in rng.sample(services, 7):
            text = template.format(s=name).replace(name, name.capitalize(), 1)
            pending.append((some_day(), text, question.format(s=name), "incident", ""))
    style = 0
    for (template, question), on_day in zip(CHORES, CHORE_ON, strict=True):
        for name in rng.sample(services, 7):
            dates = sorted({some_day() for _ in range(4)})
            for k, day in enumerate(dates):
                if k == len(dates) - 1:
                    asked, kind = question.format(s=name), "latest"
                elif k == 1:
                    asked, kind = on_day.format(s=name, d=date_phrase(day, style)), "date"
                    style += 1
                else:
                    asked, kind = "", ""
                pending.append((day, template.format(s=name), asked, kind, ""))
    for gadget in GADGETS:
        for template, question in GADGET_EVENTS:
            text = template.format(g=gadget)
            pending.append((some_day(), text, question.format(g=gadget), "irregular", ""))
    for person in PEOPLE:
        for template, question in PEOPLE_EVENTS:
            text = template.format(p=person, t=rng.choice(TOPICS))
            pending.append((some_day(), text, question.format(p=person), "irregular", ""))
    for project, steps, question in PROJECTS:
        for step in steps:
            pending.append((some_day(), f"{project}: {step}", "", "", project))
        pending.append((some_day(), "", question, "multi", project))
    for index in PASTED:
        # A decision pasted four times into one day's note: the WARM line stays the answer.
        text = DECISIONS[index][0]
        day = some_day()
        for _ in range(4):
            pending.append((day, f"Task copy: {text}.", "", "", ""))
    for events in days.values():
        for _ in range(rng.randint(4, 9)):
            name = rng.choice(services)
            events.append(
                rng.choice(ROUTINE).format(s=name, S=name.capitalize(), n=rng.randint(5, 95))
            )
    located: dict[int, tuple[date, int]] = {}
    for index, (day, text, _, _, _) in enumerate(pending):
        if text:
            slot = rng.randint(0, len(days[day]))
            days[day].insert(slot, f"\x00{index}\x00{text}")
    for day, events in days.items():
        out = [f"# {day.isoformat()}", ""]
        for n, event in enumerate(events):
            if n and n % 3 == 0:
                out.append("")
            if event.startswith("\x00"):
                _, index, text = event.split("\x00")
                located[int(index)] = (day, len(out) + 1)
                event = text
            out.append(f"- {event}")
        out += [
            "",
            f"Updated: {day.isoformat()}",
            "Decisions: none",
            "Signal: routine",
            "Open: none",
        ]
        (root / f"memory/episodic/{day.isoformat()}.md").write_text("\n".join(out) + "\n")
    groups: dict[str, list[tuple[str, int | None]]] = {}
    for index, (_, text, question, kind, group) in enumerate(pending):
        if group and text:
            where, line = located[index]
            groups.setdefault(group, []).append((f"memory/episodic/{where}.md", line))
        elif group:
            questions.append(Question(question, tuple(groups[group]), kind))
        elif question:
            where, line = located[index]
            questions.append(ask(question, f"memory/episodic/{where}.md", line, kind))
    last = FIRST_DAY + timedelta(days=DAYS - 1)
    for k, day in enumerate(sorted(rng.sample(sorted(days), 20))):
        phrase = date_phrase(day, k)
        questions.append(ask(f"what did I write down on {phrase}?", _note(day), None, "date"))
    for phrase, day in relative_days(TODAY):
        if FIRST_DAY <= day <= last:
            questions.append(ask(f"what happened {phrase}?", _note(day), None, "date"))
    return questions


def _note(day: date) -> str:
    return f"memory/episodic/{day.isoformat()}.md"
