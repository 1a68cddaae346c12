"""A chat kept as one list item per turn, ``- Name: text`` (PROTOCOL §9 v4): the
line a hit shows is the turn that answers, by the speaker the query names. Every
behaviour test runs with both scanners."""

from __future__ import annotations

from pathlib import Path

from memtier.search.speakers import speaker
from memtier.search.tokens import query_terms
from tests.conftest import CliRunner
from tests.search.test_search import results, scanner, search, write

__all__ = ["scanner"]


def _chat(root: Path, name: str, turns: list[str]) -> None:
    day = name[:10]
    write(root, f"memory/episodic/{name}", f"# {day}\n\n## Conversation\n\n" + "\n".join(turns))


def test_a_speaker_label_is_told_apart() -> None:
    assert speaker("- Melanie: We went camping.") == ("melanie", 10)
    assert speaker("* **Anna Lena**: hi") == ("anna lena", 14)
    assert speaker("- Dr. Ruiz: rest a week") == ("dr. ruiz", 11)
    # A fact list's own words are not speakers.
    assert speaker("- docker01: 192.168.1.20") is None
    assert speaker("- The deploy failed: disk full") is None
    assert speaker("Decisions: none") is None
    assert speaker("- 2026-11-02: pruned images") is None


def test_a_label_in_a_script_without_case_is_a_speaker() -> None:
    # A Chinese, Japanese or Korean name has no capital letter, and its colon is
    # often the full-width one: "- 张伟：…" was never read as a turn.
    assert speaker("- 张伟：今天去河边散步了。") == ("张伟", 9)
    assert speaker("- 李小明: 好的") == ("李小明", 12)
    assert speaker("- 김민수: 안녕") == ("김민수", 12)
    assert speaker("- Anna：hi") == ("anna", 7)
    # A sentence before a colon is not a name, nor is a lowercase word.
    assert speaker("- 会议的时间是三点：地点在三楼。") is None
    assert speaker("- note: a lowercase word is no name") is None
    assert speaker("- 张伟:今天") is None  # an ASCII colon still needs its space


def test_the_named_speakers_reply_is_the_line_shown(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # The finding: the hit showed the other person's question, which repeats the
    # query's words, not the reply of the person the query names.
    _chat(
        root,
        "2026-10-02.md",
        [
            "- Caroline: The kids look so happy at the lake!",
            "- Melanie: They love it there, we go every summer.",
            "- Caroline: How did the kids handle the accident last week?",
            "- Melanie: They were scared, but we told them their brother would be fine.",
            "- Caroline: Glad to hear it.",
        ],
    )
    _chat(root, "2026-09-01.md", ["- Caroline: Hi!", "- Melanie: Hello, all well here."])
    (first, *_) = results(search(cli, root, "How did Melanie's kids handle the accident?"))
    assert (first["path"], first["line"]) == ("memory/episodic/2026-10-02.md", 8)


def test_a_turn_of_the_named_speaker_is_preferred(cli: CliRunner, root: Path, scanner: str) -> None:
    # "When did N. go for a walk?" showed the other person's walk.
    _chat(
        root,
        "2026-10-02.md",
        [
            "- Jon: I took a long walk by the river this morning.",
            "- Gina: Nice, I love the river in autumn.",
            "- Gina: I went for a walk by the river too, on Sunday.",
        ],
    )
    _chat(root, "2026-09-01.md", ["- Jon: Hi!", "- Gina: Hello, all well here."])
    (first, *_) = results(search(cli, root, "When did Gina walk by the river?"))
    assert (first["path"], first["line"]) == ("memory/episodic/2026-10-02.md", 7)
    (first, *_) = results(search(cli, root, "When did Jon walk by the river?"))
    assert (first["path"], first["line"]) == ("memory/episodic/2026-10-02.md", 5)


def test_a_chinese_speakers_turn_is_preferred(cli: CliRunner, root: Path, scanner: str) -> None:
    # The other speaker's question names Li Na and says the same words; the
    # turn shown is Li Na's own answer, as for a capitalised English label.
    _chat(
        root,
        "2026-10-02.md",
        [
            "- 张伟：李娜，你昨天去河边散步了吗？",
            "- 李娜：去了，我们沿着河边散步了两个小时。",
            "- 张伟：真好。",
        ],
    )
    _chat(root, "2026-09-01.md", ["- 张伟：你好！", "- 李娜：你好。"])
    (first, *_) = results(search(cli, root, "李娜在河边散步"))
    assert (first["path"], first["line"]) == ("memory/episodic/2026-10-02.md", 6)


def test_a_line_is_shown_by_one_hit_only(cli: CliRunner, root: Path, scanner: str) -> None:
    # The finding: the question's turn and the long reply naming the person were two
    # answers of one group, and both chose the reply as their line: the same path:line
    # twice in the results, one place of ten wasted.
    turns = [
        f"- Caroline: Hi Melanie, news number {i}.\n- Melanie: Nice, Caroline!" for i in range(6)
    ]
    reply = "Some friends stayed and some left, it was hard but fine. " * 5
    turns += [
        "- Melanie: What about your relationships?",
        f"- Caroline: It changed them. {reply}My relationships are better now.",
        "- Melanie: Caroline, that sounds tough.",
    ]
    write(root, "memory/episodic/2023-09-13.md", "# 2023-09-13\n\n" + "\n".join(turns) + "\n")
    for day in ("01", "02", "03"):
        write(root, f"memory/episodic/2023-09-{day}.md", f"# 2023-09-{day}\n\n- Caroline: rain\n")
    found = results(search(cli, root, "What is Caroline's relationship status?"))
    shown = [(hit["path"], hit["line"]) for hit in found]
    assert shown[0] == ("memory/episodic/2023-09-13.md", 16)  # the reply, once
    assert len(shown) == len(set(shown))


def test_a_turn_counts_the_words_of_the_turns_beside_it(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # The finding: a question and its reply share the query's words between them
    # ("how are the dogs?" / "we went to the park"), and a note with the same words
    # in turns far apart ranked first. The turns beside a turn count for it, at half
    # a match (as a heading's words count for the section under it).
    _chat(
        root,
        "2026-10-02.md",
        [
            "- Anna: Hi Bob!",
            "- Bob: Hi Anna.",
            "- Anna: How are the dogs doing these days, tell me everything?",
            "- Bob: Great, we went all the way to the park together this morning.",
            "- Anna: Lovely.",
        ],
    )
    _chat(
        root,
        "2026-09-01.md",
        [
            "- Bob: My dogs are fine, thanks for asking about them.",
            "- Anna: Good to hear.",
            "- Bob: Work is busy.",
            "- Anna: Mine too.",
            "- Bob: The park near work was so busy today, I could not sit.",
        ],
    )
    for i in range(6):
        _chat(root, f"2026-08-0{i + 1}.md", [f"- Anna: Hi Bob, day {i}.", "- Bob: Hello."])
    (first, *_) = results(search(cli, root, "Which park did Bob take the dogs to?"))
    assert (first["path"], first["line"]) == ("memory/episodic/2026-10-02.md", 8)


def test_a_turn_that_tells_at_length_outranks_a_short_one_naming_the_thing(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # The finding: a turn that tells what happened is long, and a short turn that only
    # names the thing ("Fingers crossed for the apartment!") won on its length alone.
    # A section here is one turn: its length says how much it tells, not that it
    # repeats itself, so length counts for half (BM25's b 0.5), no longer three quarters.
    _chat(
        root,
        "2026-10-02.md",
        [
            "- Anna: Hi Bob!",
            "- Bob: Hi Anna, any news?",
            "- Anna: Yes! After two months of calls and viewings we signed the lease on a"
            " ground-floor apartment with a small garden, so the dogs finally have room to"
            " play and the landlord is happy with pets. We move in next month, and I"
            " already bought a new bed for each of them.",
            "- Bob: Wow, well done.",
        ],
    )
    _chat(
        root,
        "2026-09-01.md",
        ["- Bob: How are you?", "- Anna: Fingers crossed for the apartment!", "- Bob: Cool."],
    )
    for i in range(6):
        _chat(root, f"2026-08-0{i + 1}.md", [f"- Anna: Hi Bob, day {i}.", "- Bob: Hello."])
    (first, *_) = results(search(cli, root, "Did Anna find an apartment for her dogs?"))
    assert (first["path"], first["line"]) == ("memory/episodic/2026-10-02.md", 7)


def test_us_is_a_stopword_as_them_is(cli: CliRunner, root: Path, scanner: str) -> None:
    # The finding: "which US holiday" searched for the pronoun "us", which a chat says
    # in every other turn, and a turn saying "us" and "car" outranked the one telling
    # of the holiday. "us" is dropped like "me", "him", "her" and "them".
    _chat(root, "2026-07-05.md", ["- Maria: A car ran into mine on the Fourth of July."])
    _chat(
        root,
        "2026-10-01.md",
        ["- Maria: So kind of you both to drive us all the way home in your car last night!"],
    )
    for i in range(6):
        _chat(root, f"2026-08-0{i + 1}.md", [f"- Maria: Hi John, day {i}.", "- John: Hello."])
    (first, *_) = results(search(cli, root, "Around which US holiday did Maria have a car crash?"))
    assert first["path"] == "memory/episodic/2026-07-05.md"


def test_a_british_doubled_l_finds_the_american_single_one(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # The finding: "travelling" kept its stem "travell" (an l is never undoubled: falling
    # is fall), which finds "travelled" but never "travel", "traveled" or "traveling".
    _chat(root, "2026-10-02.md", ["- Sam: We traveled all over Ohio by train last month."])
    _chat(root, "2026-09-01.md", ["- Sam: Ohio is cold."])
    for i in range(6):
        _chat(root, f"2026-08-0{i + 1}.md", [f"- Sam: Hi Evan, day {i}.", "- Evan: Hello."])
    (first, *_) = results(search(cli, root, "Where was Sam travelling in Ohio?"))
    assert first["path"] == "memory/episodic/2026-10-02.md"


def test_the_querys_own_word_counts_whole(cli: CliRunner, root: Path, scanner: str) -> None:
    # The finding: "camping" in the query is the term "camp", and the text's "camping"
    # counted 0.7 (a longer word that merely starts with the term) where "camp" counted 1:
    # the query's own word was the weaker match. It counts whole now, as the stem does
    # (the two turns are then equal, and the newer note wins the tie).
    _chat(root, "2026-10-02.md", ["- Anna: We went camping by the lake."])
    _chat(root, "2026-09-01.md", ["- Anna: We went to a camp today."])
    for i in range(6):
        _chat(root, f"2026-08-0{i + 1}.md", [f"- Anna: Hi Bob, day {i}.", "- Bob: Hello."])
    (first, *_) = results(search(cli, root, "Where did Anna go camping?"))
    assert first["path"] == "memory/episodic/2026-10-02.md"


def test_a_negated_auxiliary_is_no_word_of_its_own(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # The finding: "won't" was cut at its apostrophe into "won" and "t", and "won" is
    # a form of "win": turns promising what Nate won't do outranked the one he won in.
    _chat(
        root,
        "2026-10-02.md",
        [
            "- Nate: I won't stop, I won't quit the tournament, I won't!",
            "- Jon: Good luck.",
        ],
    )
    _chat(root, "2026-10-09.md", ["- Nate: I won the tournament, a great day.", "- Jon: Wow."])
    (first, *_) = results(search(cli, root, "When did Nate win the tournament?"))
    assert first["path"] == "memory/episodic/2026-10-09.md"
    # In the query, "won't" asks for no "win"; "couldn't" still finds "couldn't".
    assert "win" not in {t.text for t in query_terms("What won't Jon do?")}
    _chat(root, "2026-09-01.md", ["- Audrey: I couldn't walk the dogs, my knee hurt."])
    _chat(root, "2026-09-20.md", ["- Audrey: I walk the dogs daily."])
    (first, *_) = results(search(cli, root, "Why couldn't Audrey walk the dogs?"))
    assert first["path"] == "memory/episodic/2026-09-01.md"


def test_a_hyphened_word_of_short_parts_finds_them_apart(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # The finding: "pet-friendly" and "ice-cream" (a part of three letters) stayed one
    # hyphened word, found only as written; the chats say "pet friendly", "ice cream".
    _chat(root, "2026-10-02.md", ["- Andrew: We found a pet friendly place downtown!"])
    _chat(root, "2026-10-09.md", ["- Andrew: We found a place downtown, finally."])
    (first, *_) = results(search(cli, root, "How does Andrew feel about a pet-friendly place?"))
    assert first["path"] == "memory/episodic/2026-10-02.md"
    _chat(root, "2026-09-01.md", ["- Nate: My vegan ice cream came out well."])
    (first, *_) = results(search(cli, root, "vegan ice-cream"))
    assert first["path"] == "memory/episodic/2026-09-01.md"
    # A part of one or two letters keeps the word whole: "e-mail" never finds "mail".
    _chat(root, "2026-08-01.md", ["- Nate: The mail came late."])
    assert results(search(cli, root, "e-mail")) == []


def test_how_many_asks_for_a_number_not_the_word(cli: CliRunner, root: Path, scanner: str) -> None:
    # "How many times has Jolene been to France?" searched for "many", and a turn saying
    # "we went on many excursions" met it as the turn telling the visits did.
    _chat(root, "2026-10-02.md", ["- Jolene: We went on many excursions, many times!"])
    _chat(root, "2026-09-01.md", ["- Jolene: I have been to France twice, both times in May."])
    (first, *_) = results(search(cli, root, "How many times has Jolene been to France?"))
    assert first["path"] == "memory/episodic/2026-09-01.md"
    assert "long" in {t.text for t in query_terms("How long has Nate had his turtles?")}


def test_a_modal_or_a_hedge_is_no_search_word(cli: CliRunner, root: Path, scanner: str) -> None:
    # The finding: "What might John's financial status be?" ranked first a turn saying
    # "might", and "likely" was searched as "like", a word of its own.
    _chat(root, "2026-10-02.md", ["- Jon: I might go out tonight.", "- Gina: Fun."])
    _chat(root, "2026-10-09.md", ["- Jon: My job at the bank is fine.", "- Gina: Good."])
    for day in ("2026-09-01", "2026-09-02", "2026-09-03"):
        _chat(root, f"{day}.md", ["- Gina: I quit my job today.", "- Jon: Oh."])
    (first, *_) = results(search(cli, root, "What might Jon's job be?"))
    assert first["path"] == "memory/episodic/2026-10-09.md"
    # "Describe" frames the question as "kind" does: the answer never says it.
    _chat(root, "2026-10-05.md", ["- Jon: Let me describe it to you.", "- Gina: Sure."])
    (first, *_) = results(search(cli, root, "How does Jon describe his job?"))
    assert first["path"] == "memory/episodic/2026-10-09.md"
    texts = {t.text for t in query_terms("Would Jon likely or probably enjoy hiking?")}
    assert texts.isdisjoint({"like", "likely", "probab", "probably"})
    assert "like" in {t.text for t in query_terms("What do Jon's kids like?")}


def test_a_name_has_no_ing_form(cli: CliRunner, root: Path, scanner: str) -> None:
    # "Nate" gave the form "nating" and "Caroline" "carolining", looked for in every scan.
    texts = {t.text for t in query_terms("When did Nate and Caroline dance?")}
    assert {"nate", "caroline", "dance", "dancing"} <= texts
    assert texts.isdisjoint({"nating", "carolining"})
    # A capital at the start of a sentence says nothing: "Hike" is still a verb.
    assert "hiking" in {t.text for t in query_terms("Hike with Nate? Hike where?")}
    _chat(root, "2026-10-02.md", ["- Nate: I love dancing at the club."])
    (first, *_) = results(search(cli, root, "Dance with Nate"))
    assert first["path"] == "memory/episodic/2026-10-02.md"


def test_common_words_together_are_not_a_weak_word_alone(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # A chat kept as a few long notes: "dog", "play" and "park" are each in a fifth of
    # the notes or more (weak beside a rarer word), and the turn holding all three was
    # ranked below every turn holding only the question's rarer word "activity".
    for day in range(1, 21):
        turns = ["- Ann: Long day at work.", "- Ben: Same here, lots of meetings."]
        if day % 2:
            turns += ["- Ann: The dog slept all afternoon.", "- Ben: Mine too."]
        if day % 3 == 0:
            turns += ["- Ben: Rain again.", "- Ann: I walked past the park today."]
        if day % 2 == 0:
            turns += ["- Ben: The kids play cards.", "- Ann: Fun."]
        _chat(root, f"2026-10-{day:02d}.md", turns)
    _chat(
        root,
        "2026-10-21.md",
        ["- Ben: How was the weekend?", "- Ann: The dogs play in the park all Sunday."],
    )
    for day in (22, 23):
        _chat(root, f"2026-10-{day:02d}.md", ["- Ben: Any new activity for you?", "- Ann: No."])
    found = results(search(cli, root, "What activity do the dogs play at the park?"))
    (first, *_) = found
    assert (first["path"], first["line"]) == ("memory/episodic/2026-10-21.md", 6)
