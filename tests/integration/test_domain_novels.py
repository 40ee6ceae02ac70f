"""Both novels end to end: ingest (session fixtures) → graph → ask; and entity resolution against the gold lists.

Each novel is ingested once per session with its domain's settings file alone (``conf/domains/*.toml``, see
``conftest``); War and Peace's brings the alias table and both bring their gold list, so the build itself scores
its entity resolution. Expected answers come from the lakehouse tables (co-occurrence counts, mention links), never
typed in; the build's reported precision/recall is checked against a score computed here, independently, from the
``entities`` table with ``ingestion.resolution_eval`` and the gold file.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from graph.lakehouse import Lakehouse
from ingestion.resolution import ResolvedEntity
from ingestion.resolution_eval import load_gold, score_details
from tests.unit.ingestion.tables import read
from tests.unit.tools.test_domain_sample import ask, chapter_entities, closest_companion, entity_named
from tools.request import ChatRequest

pytestmark = [pytest.mark.spark, pytest.mark.corpus, pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "tests" / "data"
RUNS = {"egri_csillagok": "egri_run", "war_and_peace": "war_and_peace_run"}


def gold_score(lake: Path, novel: str) -> Any:
    rows = read(lake, "entities")
    entities = [ResolvedEntity(r.entity_id, r.canonical_name, r.label, tuple(r.aliases)) for r in rows.itertuples()]
    score = score_details(entities, load_gold(GOLD / f"gold_{novel}.json"))
    print(f"\n{novel}: precision {score.precision:.3f} recall {score.recall:.3f} "
          f"({score.found_aliases} gold aliases found; wrong {list(score.wrong_pairs)[:5]}; "
          f"missed {list(score.missed_pairs)[:5]})")
    return score


@pytest.mark.parametrize("novel", sorted(RUNS))
def test_build_reports_resolution_against_gold_meeting_the_targets(novel: str, request: pytest.FixtureRequest) -> None:
    from ingestion.markers import MarkerStore

    run: SimpleNamespace = request.getfixturevalue(RUNS[novel])
    assert run.result.status == "succeeded", run.result
    reported = next(s for s in run.result.stages if s.stage == "entities").details["gold"]
    marker = MarkerStore(Lakehouse.for_root(run.lake)).read("entities")
    assert marker.details["gold"] == reported  # `csillag status` shows the same
    assert reported["path"] == str(run.settings.ner.gold_list) == f"tests/data/gold_{novel}.json"
    score = gold_score(run.lake, novel)
    assert (reported["precision"], reported["recall"]) == (score.precision, score.recall)
    assert (reported["found_aliases"], reported["correct_pairs"], reported["gold_pairs"]) == (
        score.found_aliases, score.correct_pairs, score.gold_pairs)
    assert score.precision >= 0.95
    assert score.recall >= 0.80


# -- Egri csillagok --------------------------------------------------------------------------------------------


def test_egri_closest_companion_of_gergely(egri_run: SimpleNamespace) -> None:
    gergely = entity_named(egri_run.lake, "Gergely")
    other, count = closest_companion(egri_run.lake, gergely.entity_id)
    answer = ask(egri_run.lake, "Ki Gergely legközelebbi társa?")
    assert answer.startswith(f"{gergely.canonical_name} legközelebbi társa {other}: {count} alkalommal")


def test_egri_how_dobo_and_gergely_are_connected(egri_run: SimpleNamespace) -> None:
    dobo, gergely = entity_named(egri_run.lake, "Dobó"), entity_named(egri_run.lake, "Gergely")
    pairs = read(egri_run.lake, "cooccurrences")
    pair = pairs[(pairs.src_id == min(dobo.entity_id, gergely.entity_id))
                 & (pairs.dst_id == max(dobo.entity_id, gergely.entity_id))]
    assert len(pair) == 1
    answer = ask(egri_run.lake, "How are Dobó and Gergely connected?")  # an English question: an English answer
    assert answer.startswith(f"{dobo.canonical_name} and {gergely.canonical_name} are directly connected: they "
                             f"appear together {int(pair['count'].iloc[0])} times")
    assert "Sources:" in answer


def test_egri_chapter_question_asks_for_the_part_then_answers(egri_run: SimpleNamespace) -> None:
    from cli.ask import build_platform
    from settings.config import load_settings
    from tools.analysis.domain import DomainSettings

    settings = load_settings(lakehouse={"root": egri_run.lake})
    platform, _ = build_platform(settings, DomainSettings.from_settings(settings, "egri_csillagok"))
    request = ChatRequest("Mi történik a 3. fejezetben?", user_id="t", domain="egri_csillagok", user_lang="hu")
    question = asyncio.run(platform.handle(request))
    assert question.finish_reason == "clarification"  # every part has a chapter III
    chunks = read(egri_run.lake, "chunks")
    parts = list(dict.fromkeys(chunks.sort_values(["unit_index"]).part_title.dropna()))
    options = question.clarification["questions"][0]["options"]
    assert [o.split(" › ")[0] for o in options] == parts
    answer = asyncio.run(platform.handle(ChatRequest(
        "2", user_id="t", domain="egri_csillagok", user_lang="hu",
        session_id=question.clarification["session_id"], answer="2")))
    unit = chunks[(chunks.part_title == parts[1]) & (chunks.unit_kind == "chapter")]
    unit = unit[unit.unit_title == "III."]
    assert unit.unit_id.nunique() == 1
    links = read(egri_run.lake, "mention_entities")
    top = links[links.chunk_id.isin(unit.chunk_id)].entity_id.value_counts().index[0]
    name = read(egri_run.lake, "entities").set_index("entity_id").canonical_name[top]
    assert answer.content.startswith(f"{parts[1]} › {unit.unit_title.iloc[0]}: ")
    assert f"Szereplők és helyek: {name} (" in answer.content


# -- War and Peace ---------------------------------------------------------------------------------------------


def test_war_and_peace_closest_companion_of_pierre(war_and_peace_run: SimpleNamespace) -> None:
    pierre = entity_named(war_and_peace_run.lake, "Pierre")
    other, count = closest_companion(war_and_peace_run.lake, pierre.entity_id)
    answer = ask(war_and_peace_run.lake, "Who is Pierre's closest companion?", "--domain", "war_and_peace")
    assert answer.startswith(f"{pierre.canonical_name}'s closest companion is {other}: they appear together "
                             f"{count} times")


def test_issue_14_war_and_peace_resolution_without_its_alias_table(war_and_peace_run: SimpleNamespace) -> None:
    """The whole novel's mentions (from the session's build) resolved with no alias table: the general rules alone
    join no two gold characters and make well over the 0.32 recall of issue 5 (docs/quality.md has the figures)."""
    from ingestion.resolution import SurfaceForm, resolve_entities
    from tests.unit.ingestion.tables import read as read_table

    mentions = read_table(war_and_peace_run.lake, "mentions")
    counts = mentions.groupby(["text", "label"]).size()
    forms = [SurfaceForm(text, label, int(n)) for (text, label), n in counts.items()]
    entities, mapping = resolve_entities(forms, language="en")  # no alias table
    mass: dict[str, int] = {}
    for form in forms:
        entity_id = mapping.get((form.text, form.label), "")
        mass[entity_id] = mass.get(entity_id, 0) + form.count
    kept = [entity for entity in entities if mass.get(entity.entity_id, 0) >= 2]
    score = score_details(kept, load_gold(GOLD / "gold_war_and_peace.json"))
    print(f"\nwithout the alias table: {score.summary()}; missed {list(score.missed_pairs)[:8]}")
    assert score.precision == 1.0, score.wrong_pairs
    assert score.recall >= 0.40
    by_alias = {alias: entity for entity in kept for alias in entity.aliases}
    assert by_alias["Prince Andrew"].entity_id == by_alias["Andrew"].entity_id
    assert by_alias["Prince Andrew"].canonical_name == "Andrew Bolkonski"
    assert by_alias["Natasha"].canonical_name == "Natasha Rostova"
    # one name spelt two ways; one man's name with his surname and with his patronymic
    assert by_alias["Buonaparte"].entity_id == by_alias["Bonaparte"].entity_id
    assert by_alias["Prince Vasili"].entity_id == by_alias["Prince Vasili Kuragin"].entity_id
    shouted = [e.canonical_name for e in kept if e.label == "PERSON" and any(
        len(word) > 2 and word.isupper() for word in e.canonical_name.split())]
    assert not shouted  # never a heading's capitals


def test_war_and_peace_chapter_of_a_book(war_and_peace_run: SimpleNamespace) -> None:
    chunks = read(war_and_peace_run.lake, "chunks")
    book_two = chunks[chunks.part_title.fillna("").str.startswith("BOOK TWO")]
    answer = ask(war_and_peace_run.lake, "What happens in chapter 3 of book two?", "--domain", "war_and_peace")
    unit = book_two[book_two.unit_title == "CHAPTER III"]
    assert unit.unit_id.nunique() == 1
    assert answer.startswith(f"{unit.part_title.iloc[0]} › CHAPTER III: {unit.chunk_id.nunique()} passages.")
    # Spelled ordinals name the same chapter (its heading and its people; the passages follow the question's words).
    spelled = ask(war_and_peace_run.lake, "What happens in the third chapter of the second book?", "--domain",
                  "war_and_peace")
    assert spelled.splitlines()[:2] == answer.splitlines()[:2]


def test_war_and_peace_domain_answers_with_merged_aliases(war_and_peace_run: SimpleNamespace) -> None:
    andrew = entity_named(war_and_peace_run.lake, "Andrusha")  # the nickname joined through the alias table
    assert "Prince Andrew" in list(andrew.aliases)
    other, count = closest_companion(war_and_peace_run.lake, andrew.entity_id)
    out = io.StringIO()
    from cli.ask import main

    assert main(["Who is Prince Andrew's closest companion?", "--lakehouse", str(war_and_peace_run.lake),
                 "--domain", "war_and_peace", "--quiet"], out=out) == 0
    assert out.getvalue().startswith(f"{andrew.canonical_name}'s closest companion is {other}: they appear "
                                     f"together {count} times")


def test_chapter_entities_helper_is_consistent(war_and_peace_run: SimpleNamespace) -> None:
    with pytest.raises(AssertionError):  # "chapter 1" is one per book: the helper refuses to guess
        chapter_entities(war_and_peace_run.lake, 1)


def test_issue_14_war_and_peace_a_family_is_answered_with_its_members(war_and_peace_run: SimpleNamespace) -> None:
    """"The Rostovs" is the family, not a character: labelled FAMILY, and "Who are the Rostovs?" lists its people —
    expected from the entities table: the full person names ending in the surname or its feminine form."""
    lake = war_and_peace_run.lake
    family = entity_named(lake, "Rostovs")
    assert family.label == "FAMILY"
    entities = read(lake, "entities")
    words = entities.canonical_name.str.split()
    people = entities[(entities.label == "PERSON") & (words.str.len() > 1) & words.str[-1].isin(["Rostov", "Rostova"])]
    members = people.sort_values(["mention_count", "entity_id"], ascending=[False, True]).canonical_name.head(6)
    assert len(members) >= 3  # Natasha, Nicholas, Petya, the count …
    answer = ask(lake, "Who are the Rostovs?", "--domain", "war_and_peace")
    assert answer.startswith(f"{family.canonical_name} (FAMILY) is mentioned")
    assert f"A family; its members in the book: {', '.join(members)}." in answer


def test_issue_14_war_and_peace_no_person_is_a_word_the_book_writes_after_an_article(
    war_and_peace_run: SimpleNamespace,
) -> None:
    """"the Frenchman", "a Cossack", "the Kremlin" are no characters: counted here in the chunks' text, every one-word
    PERSON entity the alias table does not list is written after "a", "an" or "the" at most half the time."""
    import re

    lake = war_and_peace_run.lake
    entities = read(lake, "entities")
    from ingestion.alias_table import AliasTable
    from ingestion.normalize import match_key

    table = AliasTable.from_file(ROOT / "conf" / "domains" / "war_and_peace_aliases.json")
    people = entities[(entities.label == "PERSON") & ~entities.canonical_name.str.contains(" ")]
    text = "\n".join(read(lake, "chunks").text)
    # one pass over the words (maximal runs of word characters and hyphens, so "Anna" is not inside "Anna-Maria"),
    # each with whether "a", "an" or "the" and only whitespace came right before it
    seen: dict[str, int] = {}
    articled: dict[str, int] = {}
    previous, previous_end = "", 0
    for word in re.finditer(r"[\w-]+", text):
        after_article = previous in {"a", "A", "an", "An", "the", "The"} and not text[previous_end:word.start()].strip()
        seen[word[0]] = seen.get(word[0], 0) + 1
        articled[word[0]] = articled.get(word[0], 0) + after_article
        previous, previous_end = word[0], word.end()
    offenders = []
    for name in people.canonical_name:
        if table.lookup(match_key(name)) is not None:
            continue
        if re.fullmatch(r"[\w-]+", name):
            total, led = seen.get(name, 0), articled.get(name, 0)
        else:  # "O'Brien": its own search, with the same boundaries
            found = re.findall(rf"(?:\b(?:[Aa]|[Aa]n|[Tt]he)\s+)?(?<![\w-]){re.escape(name)}(?![\w-])", text)
            total, led = len(found), sum(1 for match in found if match != name)
        if total >= 3 and 2 * led > total:
            offenders.append((name, led, total))
    assert len(people) > 50  # the check covers the book's people
    assert not offenders


def test_issue_14_war_and_peace_places_the_ner_took_for_people_are_places(war_and_peace_run: SimpleNamespace) -> None:
    """The NER labels most mentions of Tilsit (the town of the treaty) and Olmutz (the Austrian town of the review)
    PERSON; the book says "in Tilsit", "went to Olmutz" (``names.said_somewhere``), so their entities are places —
    and every gold character stays a person."""
    entities = read(war_and_peace_run.lake, "entities")
    mentions = read(war_and_peace_run.lake, "mentions")
    label_of = {name: label for name, label in zip(entities.canonical_name, entities.label, strict=True)}
    for place in ("Tilsit", "Olmutz"):
        labelled = mentions[mentions.text == place].label.value_counts()
        assert labelled.get("PERSON", 0) >= labelled.drop("PERSON", errors="ignore").max(), (place, labelled)
        assert label_of[place] in {"GPE", "LOC", "FAC"}, (place, label_of[place])
    gold = load_gold(GOLD / "gold_war_and_peace.json")
    people = set(entities[entities.label == "PERSON"].canonical_name)
    assert all(character.canonical_name in people for character in gold)


def test_issue_14_war_and_peace_god_is_invoked_not_a_character(war_and_peace_run: SimpleNamespace) -> None:
    """"Thank God", "my God", "God knows", "for God's sake": a third of the novel's "God"s are oaths (counted by hand
    below, with the stage's own patterns' words), so the entity is a DEITY — out of the people's rankings and out of
    Pierre's companions, where it was fifth."""
    import re

    entities = read(war_and_peace_run.lake, "entities")
    god = entities[entities.canonical_name == "God"]
    assert list(god.label) == ["DEITY"]
    text = " ".join(read(war_and_peace_run.lake, "chunks").text)
    said = [(text[max(0, m.start() - 12):m.start()].split()[-1:] or [""])[0].lower()
            + "|" + text[m.end():m.end() + 12].lower() for m in re.finditer(r"\bGod\b", text)]
    oaths = [s for s in said if s.split("|")[0] in {"thank", "my", "oh", "good"}
             or re.match(r"(?:\s+(?:knows|bless|grant|forbid|help|save)\b|'s\s+sake)", s.split("|")[1])]
    assert len(oaths) * 4 >= len(said) and len(said) > 100
    answer = ask(war_and_peace_run.lake, "Who is Pierre's closest companion?", "--domain", "war_and_peace")
    assert "God" not in answer.split("\n\n")[0]
