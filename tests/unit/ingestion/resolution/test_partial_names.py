"""``partial_names`` and its narrowing steps (``ingestion.resolution.rules.partial``): each step alone on the homes
of a crafted partial name, and each switched off in a whole resolution."""

from __future__ import annotations

from ingestion.resolution import SurfaceForm, prepare
from ingestion.resolution.evidence import Book
from ingestion.resolution.rules import partial

from .crafted import index_of, joined, people, resolve, rules_of, together


def _homes(book: Book, text: str) -> partial.Partial:
    """The homes of the partial name ``text`` before the steps, with what the later steps read."""
    name = partial.homes_of(book, index_of(book, text))
    partial.usual_title(book, name)
    partial._ranked(book, name)
    return name


def _texts(book: Book, homes: list[int]) -> list[tuple[str, ...]]:
    return [book.groups[home].texts for home in homes]


def test_partial_names_attaches_a_part_of_a_full_name_and_keeps_an_ambiguous_one_apart() -> None:
    forms = people(("Anna Pavlovna Scherer", 10), ("Anna Pavlovna", 30), ("Anna Mikhaylovna", 40), ("Anna", 5),
                   ("Scherer", 4))
    book = prepare(forms, language="en")
    partial.partial_names(book)
    assert joined(book) == {frozenset({"Anna Pavlovna Scherer", "Anna Pavlovna", "Scherer"}),
                            frozenset({"Anna Mikhaylovna"}), frozenset({"Anna"})}
    assert rules_of(resolve(forms), "Scherer") == ["partial_names", "partial_names"]
    off = resolve(forms, off={"partial_names"})
    assert not together(off, "Anna Pavlovna", "Anna Pavlovna Scherer")


def test_usual_role_reads_a_word_in_the_role_recurring_full_names_give_it() -> None:
    forms = people(("Gergely", 700), ("Bornemissza Gergely", 20), ("Gergely Dobó", 2), ("Dobó", 600),
                   ("Dobó István", 12), label="PER")
    book = prepare(forms, language="hu")
    name = partial.homes_of(book, index_of(book, "Gergely"))
    assert _texts(book, partial.usual_role(book, name)) == [("Bornemissza Gergely",)]  # not the glued "Gergely Dobó"
    assert together(resolve(forms, "hu"), "Gergely", "Bornemissza Gergely")
    assert not together(resolve(forms, "hu", off={"usual_role"}), "Gergely", "Bornemissza Gergely")


def test_usual_title_picks_the_home_bearing_the_names_title() -> None:
    forms = people(("Prince Andrew", 500), ("Prince Andrew Bolkonski", 10), ("Andrew Kaysarov", 5))
    book = prepare(forms, language="en")
    name = partial.homes_of(book, index_of(book, "Prince Andrew"))
    assert partial.usual_title(book, name) and _texts(book, name.homes) == [("Prince Andrew Bolkonski",)]
    on = resolve(forms)
    assert together(on, "Prince Andrew", "Prince Andrew Bolkonski") and "usual_title" in rules_of(on, "Prince Andrew")
    assert not together(resolve(forms, off={"usual_title"}), "Prince Andrew", "Prince Andrew Bolkonski")
    # a wife named by her husband's name has his full name under her title, never his own (``his_wifes_name``)
    wife = people(("Mrs. Joe", 50), ("Mrs. Joe Gargery", 6), ("Joe", 40), ("Joe Gargery", 3))
    book = prepare(wife, language="en")
    name = partial.homes_of(book, index_of(book, "Mrs. Joe"))
    assert _texts(book, name.homes) == [("Mrs. Joe Gargery",)]
    assert together(resolve(wife), "Mrs. Joe", "Mrs. Joe Gargery") and not together(resolve(wife), "Mrs. Joe", "Joe")


def test_one_person_joins_a_given_name_with_its_surname_and_with_its_patronymic() -> None:
    forms = people(("Prince Vasili", 196), ("Vasili", 17), ("Prince Vasili Kuragin", 3),
                   ("Prince Vasili Sergeevich", 2), ("Colonel Denisov", 40))
    book = prepare(forms, language="en")
    name = _homes(book, "Prince Vasili")
    assert partial.one_person(book, name) and len(name.homes) == 1
    assert frozenset({"Prince Vasili Kuragin", "Prince Vasili Sergeevich"}) in joined(book)
    assert together(resolve(forms), "Prince Vasili", "Prince Vasili Kuragin", "Prince Vasili Sergeevich")
    assert not together(resolve(forms, off={"one_person"}), "Prince Vasili Kuragin", "Prince Vasili Sergeevich")
    # two patronymics are two people: the step leaves them
    two = prepare(people(("Peter", 40), ("Peter Kirilovich", 5), ("Peter Ivanovich", 5)), language="en")
    name = _homes(two, "Peter")
    assert not partial.one_person(two, name) and len(name.homes) == 2


def test_dominant_given_name_joins_the_home_with_three_times_the_mentions() -> None:
    forms = people(("Andrew", 300), ("Andrew Bolkonski", 90), ("Andrew Kaysarov", 9))
    book = prepare(forms, language="en")
    name = _homes(book, "Andrew")
    assert partial.dominant_given_name(book, name) and _texts(book, name.homes) == [("Andrew Bolkonski",)]
    on = resolve(forms)
    assert together(on, "Andrew", "Andrew Bolkonski") and rules_of(on, "Andrew") == ["dominant_given_name"]
    assert not together(resolve(forms, off={"dominant_given_name"}), "Andrew", "Andrew Bolkonski")
    even = prepare(people(("Andrew", 300), ("Andrew Bolkonski", 20), ("Andrew Kaysarov", 9)), language="en")
    assert not partial.dominant_given_name(even, _homes(even, "Andrew"))


def _units(**counts: int) -> tuple[tuple[str, int], ...]:
    return tuple(counts.items())


def test_given_name_near_joins_the_home_in_whose_chapters_the_name_is_said() -> None:
    forms = [SurfaceForm("Nicholas", "PERSON", 500, he=100, units=_units(a=200, b=200, c=5, d=95)),
             SurfaceForm("Nicholas Rostov", "PERSON", 20, units=_units(a=10, b=10)),
             SurfaceForm("Nicholas Bolkonski", "PERSON", 22, units=_units(c=22))]
    book = prepare(forms, language="en")
    name = _homes(book, "Nicholas")
    assert partial.given_name_near(book, name) and _texts(book, name.homes) == [("Nicholas Rostov",)]
    assert rules_of(resolve(forms), "Nicholas") == ["given_name_near"]
    assert not together(resolve(forms, off={"given_name_near"}), "Nicholas", "Nicholas Rostov")


def test_named_one_off_picks_the_one_off_full_name_with_a_known_given_name() -> None:
    forms = people(("Mekcsey", 244), ("Mekcsey István", 1), ("Mekcsey Cece", 1), ("Nono Mekcsey", 1),
                   ("Dobó István", 12), ("Zoltay István", 8), ("Cece", 3), label="PER")
    book = prepare(forms, language="hu")
    name = _homes(book, "Mekcsey")
    assert partial.named_one_off(book, name) and _texts(book, name.homes) == [("Mekcsey István",)]
    assert rules_of(resolve(forms, "hu"), "Mekcsey") == ["named_one_off"]
    assert not together(resolve(forms, "hu", off={"named_one_off"}), "Mekcsey", "Mekcsey István")


def test_dominant_surname_joins_a_surname_of_known_sex_to_the_dominant_full_name() -> None:
    forms = [SurfaceForm("Vronsky", "PERSON", 300, he=150, she=20),
             SurfaceForm("Alexei Vronsky", "PERSON", 16, he=5), SurfaceForm("Kirill Vronsky", "PERSON", 3)]
    book = prepare(forms, language="en")
    name = _homes(book, "Vronsky")
    assert partial.dominant_surname(book, name) and _texts(book, name.homes) == [("Alexei Vronsky",)]
    assert rules_of(resolve(forms), "Vronsky") == ["dominant_surname"]
    assert not together(resolve(forms, off={"dominant_surname"}), "Vronsky", "Alexei Vronsky")
    # of unknown sex ("Bennet": the father and his daughters) it stays apart
    unknown = people(("Bennet", 300), ("Elizabeth Bennet", 60), ("Mr. Bennet", 3))
    book = prepare(unknown, language="en")
    assert not partial.dominant_surname(book, _homes(book, "Bennet"))


def test_surname_near_joins_a_surname_of_known_sex_said_in_one_homes_chapters() -> None:
    forms = [SurfaceForm("Holmes", "PERSON", 300, he=200, she=5, units=_units(u1=20, u2=20, u3=1, u4=259)),
             SurfaceForm("Sherlock Holmes", "PERSON", 6, he=4, units=_units(u1=3, u2=3)),
             SurfaceForm("Mycroft Holmes", "PERSON", 4, he=3, units=_units(u3=4))]
    book = prepare(forms, language="en")
    name = _homes(book, "Holmes")
    assert partial.surname_near(book, name) and _texts(book, name.homes) == [("Sherlock Holmes",)]
    assert rules_of(resolve(forms), "Holmes") == ["surname_near"]
    assert not together(resolve(forms, off={"surname_near"}), "Holmes", "Sherlock Holmes")


def test_named_apart_asks_only_when_two_homes_recur() -> None:
    # "Skinny Philander", once, NER glue: no other bearer "Mr. Philander" must be told from
    forms = people(("Mr. Philander", 97), ("Mr. Samuel T. Philander", 5), ("Samuel T. Philander", 3),
                   ("Skinny Philander", 1), ("Skinny", 2))
    assert together(resolve(forms), "Mr. Philander", "Mr. Samuel T. Philander", "Samuel T. Philander")
    assert not together(resolve(forms), "Mr. Philander", "Skinny Philander")
    # a brother who recurs keeps it asked ("Mr. Knightley" is not "Mr. John Knightley")
    recurring = people(("Mr. Philander", 97), ("Mr. Samuel T. Philander", 5), ("Samuel T. Philander", 3),
                       ("Tom Philander", 6), ("Mr. Tom Philander", 4))
    assert not together(resolve(recurring), "Mr. Philander", "Samuel T. Philander")


def test_a_wife_named_by_her_husbands_name_takes_her_titled_surname() -> None:
    # "Mrs. Bayham Badger" has her husband's given name: its sex (a man's) is not hers
    forms = [SurfaceForm("Mrs. Badger", "PERSON", 31, she=7), SurfaceForm("Mrs. Bayham Badger", "PERSON", 10, she=1),
             SurfaceForm("Mr. Bayham Badger", "PERSON", 3, he=1), SurfaceForm("Mr. Badger", "PERSON", 27, he=5)]
    resolved = resolve(forms)
    assert together(resolved, "Mrs. Badger", "Mrs. Bayham Badger")
    assert together(resolved, "Mr. Badger", "Mr. Bayham Badger")
    assert not together(resolved, "Mrs. Badger", "Mr. Badger")
