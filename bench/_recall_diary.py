"""The chat-diary workspace of `bench/recall`: one line per turn, many short turns.

Daily notes from March to November hold a few chats each (``## 09:12 chat with
Zoë`` then ``- Zoë: …`` / ``- Me: …`` lines). Most turns are small talk that
names the other person ("- Nate: Bye!"); a few carry a fact a question asks
about later, in other words: paraphrases, irregular forms, compounds and
accents written differently (``smart watch`` for ``smartwatch``, ``zoe`` for
``Zoë``), typos, dates and books recommended over several chats. All content is
invented; everything comes from a fixed seed.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path

from _recall_common import TODAY, Question, ask, date_phrase, relative_days

FIRST_DAY = date(2026, 3, 1)
LAST_DAY = TODAY - timedelta(days=1)
# (name as written in the notes, name as a question types it)
PEOPLE = [
    ("Nate", "nate"), ("Zoë", "zoe"), ("Mia", "mia"), ("Omar", "omar"),
    ("Priya", "priya"), ("Léa", "lea"), ("Jonas", "jonas"), ("Chidi", "chidi"),
]  # fmt: skip
SMALL_TALK = [
    "Bye!", "haha ok", "See you tomorrow!", "ok cool", "Good night!", "Thanks!",
    "How are you?", "Not much, you?", "Talk later {p}", "Same here", "lol",
    "Morning {p}!", "Sounds good", "Sure, why not", "Miss you {p}", "brb",
    "Did you sleep well?", "Long day at work today", "Any plans for the weekend?",
    "It rained all day here", "I'm so tired", "Let's catch up soon",
]  # fmt: skip
PETS = ["puppy", "kitten", "parrot", "rabbit", "hamster", "tortoise", "ferret", "goldfish"]
PET_NAMES = ["Biscuit", "Mango", "Pixel", "Noodle", "Juniper", "Waffles", "Ziggy", "Pepper"]
CITIES = ["Lisbon", "Tallinn", "Porto", "Ghent", "Bergen", "Kraków", "Lyon", "Turin"]
COMPANIES = ["Northwind", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Soylent", "Acme"]
JOBS = ["nurse", "data analyst", "pastry chef", "electrician", "teacher", "pilot", "architect",
        "translator"]  # fmt: skip
GAMES = ["Carcassonne", "Dixit", "Azul", "Catan", "Splendor", "Patchwork", "Kingdomino", "Hanabi"]
ITEMS = ["umbrella", "wallet", "headphones", "scarf", "keys", "sunglasses", "backpack", "gloves"]
PLACES = ["station", "gym", "library", "stadium", "museum", "market", "cinema", "airport"]
CUPS = ["regional cup", "pub quiz", "chess open", "relay race", "robot contest", "bake-off",
        "darts league", "choir contest"]  # fmt: skip
METRICS = ["sleep", "heart rate", "oxygen", "stress", "steps", "swim laps", "altitude", "hydration"]
CAFES = ["Café Mélange", "Café Lumière", "Café Noisette", "Café Brûlé", "Café Éclair",
         "Café Olé", "Café Crème", "Café Bohème"]  # fmt: skip
COUNTRIES = ["Iceland", "Japan", "Chile", "Norway", "Kenya", "Canada", "Estonia", "Uruguay"]
BOOKS = ["The Overstory", "Piranesi", "Klara and the Sun", "The Dispossessed", "Circe",
         "Project Hail Mary", "Pachinko", "Station Eleven", "Middlemarch", "Stoner",
         "The Remains of the Day", "Beloved", "Solaris", "Kindred", "Gilead", "Possession",
         "Embassytown", "Babel", "Lanny", "Dune", "Emma", "Ubik", "Hyperion",
         "Dracula"]  # fmt: skip

# fmt: off
# (turn text, question, kind). {P}: the name as written; {p}: as a question types it.
FACTS = [
    ("I got a {pet} last week and named it {pet_name}!", "what did {p} call the {pet}?",
     "paraphrase"),
    ("Started at {company} as a {job} on Monday.", "where is {p} employed these days?",
     "paraphrase"),
    ("My sister moved to {city}, she loves the food there.",
     "which city does {p}'s sister live in now?", "paraphrase"),
    ("I ran the half marathon in {minutes} minutes!",
     "how long did {p} need to run the half marathon?", "irregular"),
    ("My children can't stop playing {game}.", "which board game does {p}'s child like?",
     "irregular"),
    ("I lost my {item} at the {place} again.", "where did {p} lose the {item}?", "irregular"),
    ("We won the {cup} on Sunday!", "did {p}'s team win the {cup}?", "irregular"),
    ("The tomatoes grew to {minutes} centimetres this summer.",
     "how tall did {p}'s tomatoes grow?", "irregular"),
    ("My new smartwatch tracks {metric} surprisingly well.", "what does {p}'s smart watch track?",
     "compound"),
    ("Let's meet at {cafe} for brunch.", "which cafe did {p} pick for brunch?", "accent"),
    ("My VPN exitnode is in {country} now.", "which country is {p}'s exit node in?", "compound"),
    ("The API rate-limit blocked my scraper at {minutes} requests.",
     "at how many requests did {p} hit the ratelimit?", "compound"),
]
# fmt: on
TYPOS = [
    (
        "I signed up for a ceramics course on Thursdays.",
        "what did {p} say about the ceramcs course?",
    ),
    ("Repainted the balcony railing turquoise.", "what colour is {p}'s balcony railng now?"),
]  # fmt: skip


def build(root: Path) -> list[Question]:
    """Write the diary under *root* (already initialised) and return the questions."""
    rng = random.Random(20260301)
    days = [FIRST_DAY + timedelta(days=d) for d in range((LAST_DAY - FIRST_DAY).days + 1)]
    # Per day: chats, each (time, person index, turns); a turn is (speaker, text, tag).
    chats: dict[date, list[tuple[str, int, list[tuple[str, str, str]]]]] = {d: [] for d in days}
    for day in days:
        for _ in range(rng.randint(1, 3)):
            who = rng.randrange(len(PEOPLE))
            turns = []
            for _ in range(rng.randint(3, 8)):
                speaker = PEOPLE[who][0] if rng.random() < 0.6 else "Me"
                text = rng.choice(SMALL_TALK).format(p=PEOPLE[who][0])
                turns.append((speaker, text, ""))
            time = f"{rng.randint(7, 22):02d}:{rng.randint(0, 59):02d}"
            chats[day].append((time, who, turns))
    pending: list[tuple[str, str, str]] = []  # tag, question, kind
    recommended: dict[int, list[str]] = {}

    def place(who: int, text: str, tag: str, speaker: str | None = None) -> None:
        mine = [(d, c) for d in days for c in chats[d] if c[1] == who]
        _, chat = rng.choice(mine)
        turns = chat[2]
        turns.insert(rng.randint(0, len(turns)), (speaker or PEOPLE[who][0], text, tag))

    for who, (_, typed) in enumerate(PEOPLE):
        slots = {
            "pet": PETS[who], "pet_name": PET_NAMES[who], "city": CITIES[who],
            "company": COMPANIES[who], "job": JOBS[who], "game": GAMES[who],
            "item": ITEMS[who], "place": PLACES[who], "cup": CUPS[who],
            "metric": METRICS[who], "cafe": CAFES[who], "country": COUNTRIES[who],
            "minutes": str(90 + 7 * who),
        }  # fmt: skip
        for k, (text, question, kind) in enumerate(FACTS):
            tag = f"f{who}.{k}"
            place(who, text.format(**slots), tag)
            pending.append((tag, question.format(p=typed, **slots), kind))
        for k, (text, question) in enumerate(TYPOS):
            if (who + k) % 2 == 0:
                tag = f"t{who}.{k}"
                place(who, text, tag)
                pending.append((tag, question.format(p=typed), "typo"))
        recommended[who] = []
        for book in BOOKS[3 * who : 3 * who + 3]:
            tag = f"b{who}.{book}"
            place(who, f"You should read {book}, you'd love it.", tag)
            recommended[who].append(tag)
    where: dict[str, tuple[str, int]] = {}
    for day in days:
        out = [f"# {day.isoformat()}", ""]
        for time, who, turns in sorted(chats[day]):
            out.append(f"## {time} chat with {PEOPLE[who][0]}")
            for speaker, text, tag in turns:
                out.append(f"- {speaker}: {text}")
                if tag:
                    where[tag] = (f"memory/episodic/{day.isoformat()}.md", len(out))
            out.append("")
        out += [f"Updated: {day.isoformat()}", "Decisions: none", "Signal: routine", "Open: none"]
        (root / f"memory/episodic/{day.isoformat()}.md").write_text("\n".join(out) + "\n")
    questions = [ask(text, *where[tag], kind) for tag, text, kind in pending]
    for who, tags in recommended.items():
        text = f"which books did {PEOPLE[who][1]} recommend to me?"
        questions.append(Question(text, tuple(where[t] for t in tags), "multi"))
    # Dates: who was it on that day (several chats a day, every person on many days).
    for k, day in enumerate(rng.sample(days, 36)):
        time, who, _ = sorted(chats[day])[0]
        note = f"memory/episodic/{day.isoformat()}.md"
        typed = PEOPLE[who][1]
        questions.append(
            ask(f"what did {typed} and I talk about on {date_phrase(day, k)}?", note, None, "date")
        )
    for phrase, day in relative_days(TODAY):
        if FIRST_DAY <= day <= LAST_DAY:
            note = f"memory/episodic/{day.isoformat()}.md"
            questions.append(ask(f"who did I chat with {phrase}?", note, None, "date"))
    return questions
