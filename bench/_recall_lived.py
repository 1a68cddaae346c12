# ruff: noqa: E501 (tables of note lines read better one row a line)
"""The lived-in workspace of `bench/recall`: init's own files, grown for nine months.

Unlike the other two workspaces, `init`'s templates stay as written (their
description lines included, "Hosts, IPs, ports and services."), with facts
appended below them, as an agent working through `memtier remember` leaves
them. The daily notes are routine lines full of common verbs ("runs", "does"),
with placed events whose questions test what search v3 is about:

- agent: queries as an agent typed them ("docker01 IP", "when does the backup
  run", "restart window evening");
- neighbour: the question's words stand on one line and the answer on the
  next ("Asked …" / "It is …");
- date-title: a date question whose note title and closure footer also match;
  the answer is the event line, not the title;
- german: dates written in German (``2. März``, ``am 2. März``, ``02.03.``,
  ``2.3.2026``, ``gestern``, ``vorgestern``, ``letzten Montag``, ``letzte
  Woche``, ``Maerz``) over notes partly written in German;
- template: a question whose words also stand in a template's description line.

All content is invented; everything comes from a fixed seed.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path

from _recall_common import TODAY, Question, ask

FIRST_DAY = date(2026, 2, 15)
LAST_DAY = TODAY - timedelta(days=1)
MEMORY = "MEMORY.md"
INFRA = "memory/semantic/infrastructure.md"
PREFS = "memory/semantic/preferences.md"
DECISIONS = "memory/semantic/decisions.md"
PROJECTS = "memory/semantic/projects.md"
LESSONS = "memory/procedural/lessons-learned.md"

HOSTS = [
    ("docker01", "192.168.1.20", "Debian 12, the compose stack"),
    ("nas01", "192.168.1.30", "TrueNAS, four 8 TB disks in RAIDZ1"),
    ("pve01", "192.168.1.10", "Proxmox, hosts the VMs"),
    ("pi01", "192.168.1.40", "Raspberry Pi 4, pihole and the zigbee bridge"),
    ("mail01", "192.168.1.25", "Debian 12, postfix and dovecot"),
    ("edge01", "192.168.1.2", "OPNsense, the firewall"),
]
SERVICES = [
    ("grafana", "docker01", 3000),
    ("gitea", "docker01", 3001),
    ("nextcloud", "docker01", 8080),
    ("jellyfin", "nas01", 8096),
    ("pihole", "pi01", 8053),
    ("zigbee2mqtt", "pi01", 8099),
]
ROUTINE = [
    "The nightly job runs without errors.",
    "Cron runs the weekly review at 09:00 as usual.",
    "The scrub runs on nas01, no errors so far.",
    "Watchtower runs again after the config fix.",
    "Grafana does not show the disk panel after reload; it does after a refresh.",
    "Checked what the update does before applying it.",
    "Restarted {s} after the update; it runs fine.",
    "{S} uses {n}% memory, nothing to do.",
    "Looked at the {s} logs, nothing unusual.",
    "Pruned old images on docker01.",
    "Read the changelog of {s}; nothing that affects us.",
    "Tidied the notes of the week.",
]
GERMAN_ROUTINE = [
    "Alles ruhig, nur Routine.",
    "Updates eingespielt, {s} läuft.",
    "Logs von {s} angesehen, nichts Auffälliges.",
]
# (line with the question's words, the next line with the answer, the question)
NEIGHBOURS = [
    ("- Looked up the warranty of the nas01 disks.", "- It ends on 14 March 2028 for all four.",
     "when does the warranty of the nas01 disks end?"),
    ("- Jana asked for the guest wifi password again.", "- Told her it is on the card by the fridge.",
     "where is the guest wifi password written down?"),
    ("- Measured the idle power draw of pve01.", "- 38 watts with both VMs idle.",
     "how much power does pve01 draw when idle?"),
    ("- Asked the ISP why the upload speed dropped.", "- A faulty line card at the exchange; fixed Friday.",
     "why did the upload speed drop?"),
    ("- Checked which version of zigbee2mqtt is deployed.", "- 1.40.2, pinned in compose.",
     "which zigbee2mqtt version do we run?"),
    ("- Counted the spare SATA cables in the drawer.", "- Seven, two of them right-angled.",
     "how many spare sata cables are left?"),
    ("- Searched for the receipt of the new router.", "- Found it in the paperless inbox, tag hardware.",
     "where is the receipt for the router?"),
    ("- Figured out what blocks the gitea mirror.", "- The token had expired; made a new one for a year.",
     "what was blocking the gitea mirror?"),
    ("- Compared prices for a second UPS.", "- Eaton 5E 1100 at 139 euros was the cheapest fit.",
     "which second ups would be cheapest?"),
    ("- Tried to find out who owns the old domain.", "- Still registered to Marek until June 2027.",
     "who owns the old domain?"),
    ("- Noted the serial number of the edge01 box.", "- SN OPN-4471-A9, sticker on the bottom.",
     "what is the serial number of edge01?"),
    ("- Wondered why jellyfin transcodes everything.", "- Hardware acceleration was off after the update.",
     "why does jellyfin transcode every video?"),
    ("- Checked how full the nas01 pool is.", "- 71 percent, about 6.3 TB free.",
     "how full is the nas01 pool?"),
    ("- Asked Kofi for the name of his electrician.", "- Herr Albrecht, the number is in contacts.",
     "what is the name of kofi's electrician?"),
    ("- Looked into the fan noise of pi01.", "- Dust in the case fan; cleaned it, silent now.",
     "what caused the pi01 fan noise?"),
    ("- Jana wanted to know the kids' screen time limit.", "- Ninety minutes on school days, set in the router.",
     "what is the screen time limit for the kids?"),
    ("- Investigated the mail01 spam score problem.", "- SPF record missed the new relay IP; added it.",
     "what fixed the spam score of mail01?"),
    ("- Tested the restore speed from the storage box.", "- About 40 MB/s, a full restore takes nine hours.",
     "how fast is a restore from the storage box?"),
    ("- Checked when the domain certificate expires.", "- On 2 February 2027, auto-renew is on.",
     "when does the domain certificate expire?"),
    ("- Looked for the cause of the nightly wifi drop.", "- The access point reboots at 03:00 for updates.",
     "why does the wifi drop every night?"),
    ("- Asked Ines which VPN client she uses on her phone.", "- WireGuard from the app store, with the QR code.",
     "which vpn app does ines use?"),
    ("- Looked up the size of the gitea database.", "- 2.4 GB after the cleanup of old artefacts.",
     "how big is the gitea database?"),
    ("- Checked the firmware level of the switch.", "- Still 2.0.3; the update is planned for winter.",
     "which firmware does the switch run?"),
    ("- Tried to remember the BIOS password of pve01.", "- It is in vaultwarden under 'pve01 bios'.",
     "where is the pve01 bios password?"),
    ("- Measured the temperature in the server cupboard.", "- 31 degrees with the door shut, 26 open.",
     "how warm does the server cupboard get?"),
    ("- Found out why nextcloud sync is slow for Jana.", "- Her client still used the old external URL.",
     "why is nextcloud sync slow for jana?"),
    ("- Asked Marek what he pays for his fibre.", "- 49 euros a month for 500 Mbit.",
     "how much does marek pay for fibre?"),
    ("- Checked how long the nas01 scrub takes.", "- Eleven hours for the whole pool.",
     "how long does a nas01 scrub take?"),
    ("- Looked up the model of the kitchen display.", "- A Lenovo M10 tablet in a wall mount.",
     "which model is the kitchen display?"),
    ("- Asked Yuki where she bought the rack shelf.", "- At the second-hand market in Ehrenfeld.",
     "where did yuki buy the rack shelf?"),
]  # fmt: skip
# Events asked about by date; their words recur on other days.
# (event, its question, a few words of it as a German user types them with a date)
DATED = [
    (
        "Changed the DNS TTL of the home zone to 300 seconds.",
        "what did I change on {d}?",
        "DNS TTL",
    ),
    ("Replaced the fan in pi01.", "what was replaced on {d}?", "Lüfter pi01 fan"),
    ("Upgraded nextcloud to version 30.0.4.", "what did I upgrade on {d}?", "nextcloud upgrade"),
    ("Fixed the broken gitea webhook for the wiki.", "what got fixed on {d}?", "gitea webhook"),
    (
        "Moved the jellyfin library to the new dataset.",
        "what was moved on {d}?",
        "jellyfin library",
    ),
]
DATED_NOISE = [
    "Changed the grafana admin e-mail.", "Replaced a patch cable.", "Upgraded pihole.",
    "Fixed a typo in the runbook.", "Moved the old backups to cold storage.",
]  # fmt: skip
GERMAN = [
    ("Zertifikat für nextcloud erneuert.", "Zertifikat"),
    ("Router neu gestartet, Firmware 7.57 eingespielt.", "Router"),
    ("Backup-Test auf nas01 erfolgreich.", "Backup-Test"),
    ("Festplatte in nas01 getauscht.", "Festplatte"),
    ("Stromzähler abgelesen: 4312 kWh.", "Stromzähler"),
]
GERMAN_NOISE = [
    "Zertifikat geprüft, noch gültig.", "Router-Logs angesehen.", "Backup-Test geplant.",
    "Festplatte bestellt.", "Stromzähler fotografiert.",
]  # fmt: skip
GERMAN_MONTHS = ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
                 "September", "Oktober", "November", "Dezember"]  # fmt: skip


def german_phrase(day: date, style: int) -> str:
    """*day* as a German user writes it."""
    month = GERMAN_MONTHS[day.month - 1]
    plain = month.replace("ä", "a") if style % 7 == 5 else month.replace("ä", "ae")
    styles = (
        f"am {day.day}. {month}",
        f"{day.day}. {month}",
        f"{day.day:02d}.{day.month:02d}.",
        f"{day.day}.{day.month}.{day.year}",
        f"vom {day.day}. {month} {day.year}",
        f"{day.day}. {plain}",
        f"am {day.day}. {plain}",
    )
    return styles[style % len(styles)]


def build(root: Path) -> list[Question]:
    """Grow the initialised workspace under *root* and return the questions."""
    rng = random.Random(20261201)
    questions: list[Question] = []

    def append(rel: str, lines: list[str]) -> int:
        """Append *lines* to the file; the line number of the first."""
        path = root / rel
        text = path.read_text()
        if not text.endswith("\n"):
            text += "\n"
        first = text.count("\n") + 1
        path.write_text(text + "\n".join(lines) + "\n")
        return first

    # -- HOT and WARM, below the templates ----------------------------------------------
    at = append(MEMORY, ["", "## Key facts",
                         "- Backups: restic to the storage box, nightly at 02:30; a check on Sundays.",
                         "- The user is Jana; she writes German, answers may be English.",
                         "- Home network 192.168.1.0/24, gateway edge01."])  # fmt: skip
    backup = at + 2
    for text in ("when does the backup run", "what time do the backups run?",
                 "when do backups happen"):  # fmt: skip
        questions.append(ask(text, MEMORY, backup, "agent"))
    lines = ["", "## Hosts"]
    lines += [f"- {name}: {ip}, {what}" for name, ip, what in HOSTS]
    lines += ["", "## Services"]
    lines += [f"- {s} on {host}, port {port}" for s, host, port in SERVICES]
    at = append(INFRA, lines)
    for i, (name, _, _) in enumerate(HOSTS):
        questions.append(ask(f"{name} IP", INFRA, at + 2 + i, "agent"))
    services_at = at + 2 + len(HOSTS) + 2
    for i, (name, _, _) in enumerate(SERVICES[:3]):
        questions.append(ask(f"which port does {name} use", INFRA, services_at + i, "template"))
    at = append(PREFS, ["", "- Replies stay short unless Jana asks for detail.",
                        "- Never restart 19:00–23:00 (family evening TV); maintenance window is mornings.",
                        "- Notes may be German or English, dates as the user writes them."])  # fmt: skip
    questions.append(ask("restart window evening", PREFS, at + 2, "agent"))
    questions.append(ask("when may I restart services", PREFS, at + 2, "agent"))
    questions.append(ask("how does the user like replies", PREFS, at + 1, "template"))
    at = append(
        DECISIONS,
        ["", "- 2026-04-02: caddy replaces nginx on docker01; the reason is automatic TLS."],
    )
    questions.append(ask("reason for replacing nginx", DECISIONS, at + 1, "template"))
    at = append(
        PROJECTS,
        ["", "- Kitchen display: state is waiting for the wall mount; lives in gitea repo kiosk."],
    )
    questions.append(ask("state of the kitchen display project", PROJECTS, at + 1, "template"))
    at = append(
        LESSONS,
        ["", "- The zfs scrub went wrong because two jobs overlapped; stagger them instead."],
    )
    questions.append(ask("what went wrong with the zfs scrub", LESSONS, at + 1, "template"))

    # -- COLD: daily notes ---------------------------------------------------------------
    days = [FIRST_DAY + timedelta(days=i) for i in range((LAST_DAY - FIRST_DAY).days + 1)]
    german_days = set(rng.sample(days, len(days) // 4))
    bodies: dict[date, list[list[str]]] = {}
    for day in days:
        items: list[list[str]] = []
        for _ in range(rng.randint(4, 8)):
            name = rng.choice(SERVICES)[0]
            pool = GERMAN_ROUTINE if day in german_days and rng.random() < 0.5 else ROUTINE
            text = rng.choice(pool).format(s=name, S=name.capitalize(), n=rng.randint(5, 90))
            items.append([f"- {text}"])
        bodies[day] = items
    # A busy day of restarts: five lines in a row that share the agent's words.
    busy = date(2026, 11, 12)
    bodies[busy][1:1] = [[
        "- Restart of grafana planned for the evening window.",
        "- Restart window moved because of the evening backup.",
        "- Evening restart of gitea postponed.",
        "- Window for the restart: after the evening news.",
        "- Restart done in the evening, window closed.",
    ]]  # fmt: skip
    placed: list[tuple[date, list[str], int, str, str]] = []  # day, lines, answer offset, q, kind

    def place(day: date, lines: list[str], offset: int, question: str, kind: str) -> None:
        bodies[day].insert(rng.randint(0, len(bodies[day])), lines)
        placed.append((day, lines, offset, question, kind))

    for first, second, question in NEIGHBOURS:
        place(rng.choice(days), [first, second], 1, question, "neighbour")
    for noise in DATED_NOISE:
        for day in rng.sample(days, 12):
            bodies[day].insert(rng.randint(0, len(bodies[day])), [f"- {noise}"])
    style = 0
    for text, question, _ in DATED:
        for day in sorted(rng.sample(days, 5)):
            phrase = _english(day, style)
            style += 1
            place(day, [f"- {text}"], 0, question.format(d=phrase), "date-title")
    for noise in GERMAN_NOISE:
        for day in rng.sample(sorted(german_days), 10):
            bodies[day].insert(rng.randint(0, len(bodies[day])), [f"- {noise}"])
    style = 0
    for text, word in GERMAN:
        for day in sorted(rng.sample(sorted(german_days), 4)):
            place(day, [f"- {text}"], 0, f"{word} {german_phrase(day, style)}", "german")
            style += 1
    # Relative German dates, seen from TODAY (a Monday).
    monday = TODAY - timedelta(days=7)
    relative = [
        ("gestern", TODAY - timedelta(days=1)),
        ("vorgestern", TODAY - timedelta(days=2)),
        ("letzten Montag", monday),
        ("am letzten Freitag", TODAY - timedelta(days=3)),
        ("letzte Woche", monday + timedelta(days=3)),  # the Thursday of the week before
    ]
    for k, (phrase, day) in enumerate(relative):
        text, word = GERMAN[k]
        place(day, [f"- {text}"], 0, f"{word} {phrase}", "german")
        place(day, [f"- {DATED[k][0]}"], 0, f"{DATED[k][2]} {phrase}", "german")

    where: dict[int, tuple[str, int]] = {}
    for day in days:
        rel = f"memory/episodic/{day.isoformat()}.md"
        out = [f"# {day.isoformat()}", ""]
        for group in bodies[day]:
            for k, (pday, lines, offset, _, _) in enumerate(placed):
                if pday == day and lines is group:
                    where[k] = (rel, len(out) + 1 + offset)
            out.extend(group)
        out += ["", f"Updated: {day.isoformat()}", "Decisions: none", "Signal: routine",
                "Open: none"]  # fmt: skip
        (root / rel).write_text("\n".join(out) + "\n")
    for k, (_, _, _, question, kind) in enumerate(placed):
        questions.append(ask(question, *where[k], kind))
    return questions


def _english(day: date, style: int) -> str:
    month = day.strftime("%B")
    styles = (f"{day.day} {month}", f"{month} {day.day}", day.isoformat(), f"{month[:3]} {day.day}")
    return styles[style % len(styles)]
