"""The scoring of bench/quality_people.py (bench/people_scoring.py) on crafted clusterings, checked against values
computed by hand, and the well-formedness of the character lists it reads (tests/data/gold_people). Fast, no
lakehouse needed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.unit.repo_files import load_module

ROOT = Path(__file__).resolve().parents[2]
LISTS = sorted((ROOT / "tests" / "data" / "gold_people").glob("*.json"))


ps = load_module("bench/people_scoring.py")


def _gold():
    return ps.GoldPeople(
        book="crafted",
        characters=[
            ps.Character("Pip", "m", ["Pip", "Mr. Pip", "Handel"], {"siblings": ["Mrs. Joe"]}),
            ps.Character("Joe Gargery", "m", ["Joe", "Joe Gargery"], {"spouses": ["Mrs. Joe"]}),
            ps.Character("Mrs. Joe", "f", ["Mrs. Joe"], {}),
            ps.Character("Herbert Pocket", "m", ["Herbert"], {}),
        ],
        ambiguous={"Pocket": ["Herbert Pocket"]},
        not_people={"London": "place", "God": "deity"},
    )


# gold A = {0, 1, 2}, B = {3, 4}; system e1 = {0, 1}, e2 = {2, 3, 4}
# precision: 1, 1, 1/3, 2/3, 2/3 -> 11/15; recall: 2/3, 2/3, 1/3, 1, 1 -> 11/15
def test_b_cubed_of_a_split_and_a_merge():
    score = ps.b_cubed(["e1", "e1", "e2", "e2", "e2"], ["A", "A", "A", "B", "B"])
    assert score["precision"] == pytest.approx(11 / 15)
    assert score["recall"] == pytest.approx(11 / 15)
    assert score["f1"] == pytest.approx(11 / 15)
    assert score["mentions"] == 5


# everything in one cluster: precision (3 * 3/5 + 2 * 2/5) / 5 = 13/25, recall 1, F1 = 2 * 0.52 / 1.52
def test_b_cubed_of_one_big_cluster():
    score = ps.b_cubed(["e"] * 5, ["A", "A", "A", "B", "B"])
    assert score["precision"] == pytest.approx(0.52)
    assert score["recall"] == pytest.approx(1.0)
    assert score["f1"] == pytest.approx(1.04 / 1.52)


# None = left alone: precision 1, recall (3 * 1/3 + 2 * 1/2) / 5 = 0.4, F1 = 0.8 / 1.4
def test_b_cubed_counts_unresolved_mentions_as_singletons():
    score = ps.b_cubed([None] * 5, ["A", "A", "A", "B", "B"])
    assert score["precision"] == pytest.approx(1.0)
    assert score["recall"] == pytest.approx(0.4)
    assert score["f1"] == pytest.approx(0.8 / 1.4)


def test_b_cubed_rejects_unequal_lengths_and_scores_nothing_as_zero():
    with pytest.raises(ValueError, match="got 2 and 1"):
        ps.b_cubed(["e", "e"], ["A"])
    assert ps.b_cubed([], [])["f1"] == 0.0


def test_form_key_normalises_line_breaks_possessives_and_quotes():
    assert ps.form_key("Edgar\nLinton's") == "Edgar Linton"
    assert ps.form_key("Jones'") == "Jones"
    assert ps.form_key("D’Arnot’s") == "D'Arnot"
    assert ps.form_key("“Mr. Pip,”") == "Mr. Pip"


def test_mention_clustering_scores_only_unambiguous_aliases():
    # "Pocket" is ambiguous and "Stranger" unlisted: both ignored. Scored: Pip, Mr. Pip, Handel (Pip), Joe, Mrs. Joe.
    # system: p1 = {Pip, Mr. Pip}, j = {Joe, Mrs. Joe}, Handel alone.
    # precision: 1, 1, 1 (singleton), 1/2, 1/2 -> 4/5; recall: 2/3, 2/3, 1/3, 1, 1 -> (11/3) / 5 = 11/15
    mentions = [("Pip", "p1"), ("Mr. Pip's", "p1"), ("Handel", None), ("Joe", "j"), ("Mrs.\nJoe", "j"),
                ("Pocket", "p1"), ("Stranger", "p1")]
    score = ps.mention_clustering(mentions, _gold())
    assert score["mentions"] == 5
    assert score["precision"] == pytest.approx(4 / 5)
    assert score["recall"] == pytest.approx(11 / 15)


def test_merges_are_counted_per_entity_and_splits_per_extra_entity():
    entities = {
        "e1": ["Joe", "Mrs. Joe"],  # husband and wife in one: a family merge
        "e2": ["Pip"],
        "e3": ["Mr. Pip"],  # Pip's second entity
        "e4": ["Herbert", "Handel", "Pocket"],  # Herbert with Pip's nickname: a merge outside the family; Pip's third
        "e5": ["Pocket"],  # an ambiguous form alone holds no one
    }
    result = ps.merges_and_splits(entities, _gold())
    assert result["wrong_merges"] == 2
    assert result["family_merges"] == 1
    merged = {tuple(m["characters"]) for m in result["merged"]}
    assert merged == {("Joe Gargery", "Mrs. Joe"), ("Herbert Pocket", "Pip")}
    assert result["splits"] == 2
    assert result["split"] == {"Pip": ["e2", "e3", "e4"]}


def test_top_people_precision_counts_characters_and_ambiguous_forms_as_someone():
    ranked = [("Joe", ["Joe"]), ("London", ["London"]), ("Pocket", ["Pocket"]), ("Stranger", ["Stranger"])]
    result = ps.top_people_precision(ranked, _gold(), top=3)
    assert result["precision"] == pytest.approx(2 / 3)
    assert result["others"] == ["London"]


def test_non_people_needs_enough_chapters_and_no_character():
    entities = [("London", ["London"], 7), ("God", ["God"], 3), ("Pip", ["Pip", "London"], 9), ("Nobody", ["X"], 9)]
    assert ps.non_people(entities, _gold(), min_chapters=5) == [{"entity": "London", "kinds": ["place"], "chapters": 7}]


@pytest.mark.parametrize("path", LISTS, ids=[p.stem for p in LISTS])
def test_each_list_is_well_formed(path):
    gold = ps.load_gold(path)
    names = [c.name for c in gold.characters]
    assert len(names) == len(set(names)), "a character is listed twice"
    keys = [ps.form_key(a) for c in gold.characters for a in c.aliases]
    assert len(keys) == len(set(keys)), "an alias is given to two characters: it belongs under ambiguous"
    assert not set(keys) & set(gold.ambiguous), "a form is both an alias and ambiguous"
    assert not set(keys) & set(gold.not_people), "a form is both a character's alias and no one"
    for character in gold.characters:
        assert character.sex in {"m", "f", "u"}
        assert character.kin() <= set(names), f"{character.name}'s family names someone not in the list"
    for form, characters in gold.ambiguous.items():
        assert set(characters) <= set(names), f"ambiguous {form!r} names someone not in the list"


def test_there_are_at_least_ten_lists_each_read_from_a_litbank_text():
    assert len(LISTS) >= 10
    for path in LISTS:
        gold = ps.load_gold(path)
        assert gold.book == path.stem
        text = ROOT.parent / "shared" / "data" / "litbank" / "original" / f"{path.stem}.txt"
        if text.exists():  # every alias is written in the book (the lists are made by reading it)
            book = " ".join(text.read_text(encoding="utf-8").replace("’", "'").split())
            aliases = [a for c in gold.characters for a in c.aliases]
            missing = [a for a in aliases if not re.search(rf"(?<!\w){re.escape(a)}(?!\w)", book)]
            assert not missing, f"{path.stem}: aliases not in the text: {missing}"


def test_a_lakehouse_is_read_and_scored_end_to_end(tmp_path):
    """Real Delta tables shaped as the pipeline writes them: NER-labelled mentions, their entity links (one mention
    left unresolved, two carried mentions that only the links table has), entities and chunks."""
    import pandas as pd
    from deltalake import write_deltalake

    qp = load_module("bench/quality_people.py")
    mentions = pd.DataFrame({
        "mention_id": ["m1", "m2", "m3", "m4", "m5", "m6"],
        "text": ["Pip", "Mr. Pip", "London", "Joe", "Mrs.\nJoe", "Stranger"],
        "label": ["PERSON", "PERSON", "GPE", "PERSON", "PERSON", "PERSON"],
    })
    links = pd.DataFrame({
        "mention_id": ["m1", "m2", "m3", "m4", "m5", "p1", "p2"],
        "entity_id": ["e1", "e1", "e3", "e2", "e2", "e1", "e4"],
        "chunk_id": ["c1", "c1", "c1", "c2", "c2", "c2", "c2"],
        "text": ["Pip", "Mr. Pip", "London", "Joe", "Mrs.\nJoe", "Pip", "London"],
    })
    entities = pd.DataFrame({
        "entity_id": ["e1", "e2", "e3", "e4"],
        "canonical_name": ["Pip", "Joe", "London", "London"],
        "label": ["PERSON", "PERSON", "GPE", "PERSON"],
        "aliases": [["Pip", "Mr. Pip"], ["Joe", "Mrs. Joe"], ["London"], ["London"]],
        "mention_count": [3, 2, 1, 1],
    })
    chunks = pd.DataFrame({"chunk_id": ["c1", "c2"], "unit_id": ["u1", "u2"]})
    tables = {"mentions": mentions, "mention_entities": links, "entities": entities, "chunks": chunks}
    for name, frame in tables.items():
        write_deltalake(str(tmp_path / name), frame)

    tables = qp.book_tables(tmp_path)
    # scored: the five PERSON mentions of the NER (m6 "Stranger" unresolved) and the carried PERSON mention p1;
    # the GPE "London" (m3) is not a PERSON mention; p2 is carried into a PERSON entity
    assert sorted(tables["mentions"], key=str) == sorted(
        [("Pip", "e1"), ("Mr. Pip", "e1"), ("Joe", "e2"), ("Mrs.\nJoe", "e2"), ("Stranger", None), ("Pip", "e1"),
         ("London", "e4")], key=str)
    result = qp.score_book(_gold(), tables, top=20, min_chapters=1)
    # gold: Pip x3 (all e1), Joe (e2), Mrs. Joe (e2). Precision: 1, 1, 1, 1/2, 1/2 -> 4/5; recall 1
    assert result["b3_mentions"] == 5
    assert result["b3_precision"] == pytest.approx(0.8)
    assert result["b3_recall"] == pytest.approx(1.0)
    assert result["wrong_merges"] == 1 and result["family_merges"] == 1
    assert result["merged"][0]["entity"] == "Joe"
    assert result["splits"] == 0
    assert result["top_precision"] == pytest.approx(2 / 3) and result["top_others"] == ["London"]
    assert result["non_people_found"] == [{"entity": "London", "kinds": ["place"], "chapters": 1}]
