"""The joining rules besides partial names (``ingestion.resolution.rules.joins``): each run alone on a prepared book
of crafted forms, and switched off in a whole resolution."""

from __future__ import annotations

from ingestion.names import offices
from ingestion.resolution import SurfaceForm, prepare
from ingestion.resolution.rules import joins

from .crafted import index_of, joined, people, resolve, rules_of, together


def test_same_name_titles_joins_one_name_under_titles_of_one_sex() -> None:
    book = prepare(people(("Princess Mary", 50), ("Countess Mary", 10), ("Mary", 20), ("Monsieur Mary", 2)),
                   language="en")
    joins.same_name_titles(book)
    # a man's and a woman's titles: namesakes, left to the partial names one by one (the two women's titles are one
    # name key from the start)
    assert joined(book) == {frozenset({"Princess Mary", "Countess Mary"}), frozenset({"Mary"}),
                            frozenset({"Monsieur Mary"})}
    women = prepare(people(("Princess Mary", 50), ("Countess Mary", 10), ("Mary", 20)), language="en")
    joins.same_name_titles(women)
    assert joined(women) == {frozenset({"Princess Mary", "Countess Mary", "Mary"})}
    # resolved whole: a rank said once ("Count Kutuzov") joins his name only by this rule
    forms = [SurfaceForm("Kutuzov", "PERSON", 500, he=200, she=5), SurfaceForm("Prince Kutuzov", "PERSON", 40, he=10),
             SurfaceForm("Count Kutuzov", "PERSON", 1)]
    on = resolve(forms)
    assert together(on, "Kutuzov", "Count Kutuzov") and "same_name_titles" in rules_of(on, "Count Kutuzov")
    assert not together(resolve(forms, off={"same_name_titles"}), "Kutuzov", "Count Kutuzov")


def test_given_name_forms_joins_two_forms_of_one_given_name_in_one_family() -> None:
    forms = [SurfaceForm("Natalie Rostova", "PERSON", 10, she=4), SurfaceForm("Natasha Rostova", "PERSON", 40, she=20),
             SurfaceForm("Henrietta Smith", "PERSON", 10, she=5), SurfaceForm("Henry Smith", "PERSON", 12, he=6)]
    book = prepare(forms, language="en")
    joins.given_name_forms(book)
    assert joined(book) == {frozenset({"Natalie Rostova", "Natasha Rostova"}), frozenset({"Henrietta Smith"}),
                            frozenset({"Henry Smith"})}
    assert rules_of(resolve(forms), "Natalie Rostova") == ["given_name_forms"]
    assert not together(resolve(forms, off={"given_name_forms"}), "Natalie Rostova", "Natasha Rostova")


def test_same_name_titles_reads_mynheer_as_a_mans_title_before_a_surname() -> None:
    forms = [SurfaceForm("Mynheer Van Tassel", "PERSON", 1), SurfaceForm("Van Tassel", "PERSON", 6),
             SurfaceForm("Baltus Van Tassel", "PERSON", 4, he=4), SurfaceForm("Katrina Van Tassel", "PERSON", 3, she=4)]
    on = resolve(forms)
    # the Dutch "Mr." makes the bare surname a man's, which then goes to the family's one man named in full
    assert together(on, "Mynheer Van Tassel", "Van Tassel", "Baltus Van Tassel")
    assert not together(on, "Van Tassel", "Katrina Van Tassel")


def _units(*names: str) -> tuple[tuple[str, int], ...]:
    return tuple((name, 2) for name in names)


def test_titled_surname_of_the_unnamed_joins_the_woman_named_without_her_surname() -> None:
    forms = [SurfaceForm("Princess Drubetskaya", "PERSON", 6, units=_units("u1", "u2", "u3")),
             SurfaceForm("Julie Drubetskaya", "PERSON", 2, she=4, units=_units("u40")),
             SurfaceForm("Anna Mikhaylovna", "PERSON", 100, she=30, units=_units("u1", "u2", "u3", "u5")),
             SurfaceForm("Princess Anna Mikhaylovna", "PERSON", 20, units=_units("u1", "u2"))]
    # alone, on the titled form of her name: her title and her chapters are the rule's evidence
    alone = [*forms[:2], SurfaceForm("Princess Anna Mikhaylovna", "PERSON", 120, she=30,
                                     units=_units("u1", "u2", "u3", "u5"))]
    book = prepare(alone, language="en")
    joins.titled_surname_of_the_unnamed(book)
    assert frozenset({"Princess Drubetskaya", "Princess Anna Mikhaylovna"}) in joined(book)
    on = resolve(forms)
    assert together(on, "Princess Drubetskaya", "Anna Mikhaylovna", "Princess Anna Mikhaylovna")
    assert "titled_surname_of_the_unnamed" in rules_of(on, "Princess Drubetskaya")
    assert not together(resolve(forms, off={"titled_surname_of_the_unnamed"}), "Princess Drubetskaya",
                        "Anna Mikhaylovna")


def test_other_forms_of_given_names_joins_a_pet_form_said_in_its_bearers_units() -> None:
    forms = [SurfaceForm("Prince Andrew Bolkonski", "PERSON", 30, he=20, units=_units("u1", "u2", "u3", "u4")),
             SurfaceForm("Andrew Kaysarov", "PERSON", 9, he=4, units=_units("u9")),
             SurfaceForm("Andrusha", "PERSON", 5, units=_units("u2", "u3")),
             SurfaceForm("Andel", "PERSON", 5, units=_units("u2", "u3"))]  # three letters shared only
    book = prepare(forms, language="en")
    joins.other_forms_of_given_names(book)
    assert joined(book) == {frozenset({"Prince Andrew Bolkonski", "Andrusha"}), frozenset({"Andrew Kaysarov"}),
                            frozenset({"Andel"})}
    assert rules_of(resolve(forms), "Andrusha") == ["other_forms_of_given_names"]
    assert not together(resolve(forms, off={"other_forms_of_given_names"}), "Andrusha", "Prince Andrew Bolkonski")


MORGANS = people(("Morgans", 5), ("Mr. Morgan", 18), ("Miss Morgan", 9), ("Eugene Morgan", 20),
                 ("Mr. Eugene Morgan", 8), ("Lucy Morgan", 40), ("Miss Lucy Morgan", 6), ("Lucy", 150))


def test_titled_family_member_joins_a_titled_surname_to_the_familys_one_member_of_its_sex() -> None:
    # "the Morgans" keeps the surname off any one bearer in partial_names; the title picks the member of its sex.
    # "Mr. Eugene Morgan" is said with the title 8 times, which would keep "Mr. Morgan" apart as the family's head
    # (named_apart) if he were the more spoken of; he is less so than Eugene. After same_name_titles, as in the
    # resolver: each member is then one group
    book = prepare(MORGANS, language="en")
    joins.same_name_titles(book)
    joins.titled_family_member(book)
    assert {frozenset({"Mr. Morgan", "Eugene Morgan", "Mr. Eugene Morgan"}),
            frozenset({"Miss Morgan", "Lucy Morgan", "Miss Lucy Morgan"})} <= joined(book)
    on = resolve(MORGANS)
    assert together(on, "Mr. Morgan", "Eugene Morgan") and together(on, "Miss Morgan", "Lucy")
    assert "titled_family_member" in rules_of(on, "Mr. Morgan")
    off = resolve(MORGANS, off={"titled_family_member"})
    assert not together(off, "Mr. Morgan", "Eugene Morgan") and not together(off, "Miss Morgan", "Lucy")
    # without the plural, partial_names joins them itself and this rule has nothing left to do
    plain = resolve([form for form in MORGANS if form.text != "Morgans"])
    assert together(plain, "Mr. Morgan", "Eugene Morgan")
    assert "titled_family_member" not in rules_of(plain, "Mr. Morgan")


def test_titled_family_member_keeps_apart_two_members_of_the_sex_a_vaguer_sex_and_the_head() -> None:
    # two men of the family: "Mr. Pocket" may be either
    pockets = people(("Pockets", 4), ("Mr. Pocket", 50), ("Mr. Matthew Pocket", 20), ("Mr. Herbert Pocket", 30),
                     ("Herbert", 300))
    resolved = resolve(pockets)
    assert not together(resolved, "Mr. Pocket", "Mr. Matthew Pocket")
    assert not together(resolved, "Mr. Pocket", "Mr. Herbert Pocket")
    # a woman not known to be married is no "Mrs.", though a "Miss" may be her: a daughter has the surname from birth
    chesters = people(("Chesters", 3), ("Mrs. Chester", 10), ("Miss Chester", 4),
                      SurfaceForm("May Chester", "PERSON", 12, she=6))
    resolved = resolve(chesters)
    assert not together(resolved, "Mrs. Chester", "May Chester") and together(resolved, "Miss Chester", "May Chester")
    # the head of the family by the title alone, far more spoken of than the member named with it and his given name
    knightleys = people(("Knightleys", 6), ("Mr. Knightley", 500), ("Mr. John Knightley", 40), ("John Knightley", 5))
    assert not together(resolve(knightleys), "Mr. Knightley", "Mr. John Knightley")


def test_office_holder_joins_a_familys_office_to_the_member_named_in_full_under_it() -> None:
    forms = [SurfaceForm("Judge Pyncheon", "PERSON", 85, he=30), SurfaceForm("Jaffrey Pyncheon", "PERSON", 10, he=3),
             SurfaceForm("Judge Jaffrey Pyncheon", "PERSON", 1), SurfaceForm("Colonel Pyncheon", "PERSON", 28, he=9),
             SurfaceForm("Hepzibah Pyncheon", "PERSON", 20, she=8), SurfaceForm("Pyncheons", "PERSON", 5)]
    resolved = resolve(forms)
    assert together(resolved, "Judge Pyncheon", "Jaffrey Pyncheon", "Judge Jaffrey Pyncheon")
    assert "office_holder" in rules_of(resolved, "Judge Pyncheon")
    assert not together(resolved, "Colonel Pyncheon", "Jaffrey Pyncheon")  # no colonel named in full
    assert not together(resolve(forms, off={"office_holder"}), "Judge Pyncheon", "Jaffrey Pyncheon")
    # two members under the office: which one is not said
    two = [*forms, SurfaceForm("Judge Gervayse Pyncheon", "PERSON", 3)]
    assert not together(resolve(two), "Judge Pyncheon", "Jaffrey Pyncheon")


def test_unmarried_when_so_called_lets_a_miss_by_given_name_take_her_mrs() -> None:
    # the housekeeper: "Ellen Dean", "Nelly" to the family, "Miss Nelly" to the children, "Mrs. Dean" to the tenant
    forms = [SurfaceForm("Ellen", "PERSON", 87, she=30), SurfaceForm("Ellen Dean", "PERSON", 6, she=3),
             SurfaceForm("Nelly", "PERSON", 76, she=20), SurfaceForm("Miss Nelly", "PERSON", 10, she=3),
             SurfaceForm("Nelly Dean", "PERSON", 4, she=2), SurfaceForm("Mrs. Dean", "PERSON", 36, she=9)]
    book = prepare(forms, language="en")
    assert book.nodes[index_of(book, "Miss Nelly")].genders == {"f"}  # a woman, married later or not
    resolved = resolve(forms)
    assert together(resolved, "Ellen", "Ellen Dean", "Nelly", "Miss Nelly", "Nelly Dean", "Mrs. Dean")
    assert not together(resolve(forms, off={"unmarried_when_so_called"}), "Miss Nelly", "Mrs. Dean")
    # a Miss before a surname is the unmarried daughter, not "Mrs. Bennet"
    daughters = people(("Miss Bennet", 40), ("Mrs. Bennet", 90), ("Jane Bennet", 10), ("Jane", 200))
    book = prepare(daughters, language="en")
    assert book.nodes[index_of(book, "Miss Bennet")].genders == {"fu"}
    assert not together(resolve(daughters), "Miss Bennet", "Mrs. Bennet")


def test_same_name_titles_reads_a_police_officers_rank_as_a_title() -> None:
    # "Inspector Bucket" is Mr. Bucket under his office, not a man whose given name is Inspector
    forms = [SurfaceForm("Mr. Bucket", "PERSON", 320, he=90), SurfaceForm("Inspector Bucket", "PERSON", 5, he=2),
             SurfaceForm("Bucket", "PERSON", 70, he=20)]
    book = prepare(forms, language="en")
    assert book.groups[index_of(book, "Inspector Bucket")].name_tokens == ("bucket",)
    assert together(resolve(forms), "Mr. Bucket", "Inspector Bucket", "Bucket")
    # an office of its own kind: an inspector and a colonel of one surname, each said again and again, are two men
    assert offices({"inspector", "superintendent"}) == {"police"} and offices({"archdeacon"}) == {"clergy"}


ATHELNYS = [SurfaceForm("Athelny", "PERSON", 116, he=57, she=7), SurfaceForm("Mr. Athelny", "PERSON", 5, he=3),
            SurfaceForm("Mrs. Athelny", "PERSON", 35, he=8, she=13), SurfaceForm("Athelnys", "GPE", 7),
            SurfaceForm("Thorpe Athelny", "PERSON", 5, he=1)]


def test_family_head_joins_a_mans_titled_surname_to_the_familys_one_member_named_in_full() -> None:
    # "Thorpe" says no sex (no title, one pronoun, no bearer in the world's lists): only a man's title reads him so
    on = resolve(ATHELNYS)
    assert together(on, "Mr. Athelny", "Athelny", "Thorpe Athelny")
    assert "family_head" in rules_of(on, "Thorpe Athelny")
    assert not together(on, "Mrs. Athelny", "Thorpe Athelny")  # his wife's title is not read so
    off = resolve(ATHELNYS, off={"family_head"})
    assert not together(off, "Mr. Athelny", "Thorpe Athelny")
    book = prepare(ATHELNYS, language="en")
    joins.same_name_titles(book)
    mister, thorpe = book.root(index_of(book, "Mr. Athelny")), index_of(book, "Thorpe Athelny")
    assert joins.family_head(book, mister, {thorpe}, thorpe)
    assert not joins.family_head(book, index_of(book, "Mrs. Athelny"), {thorpe}, thorpe)


def test_family_head_keeps_apart_two_members_named_in_full_and_a_given_name() -> None:
    # a second member of no known sex named in full again: either may be the head
    two = resolve([*ATHELNYS, SurfaceForm("Lowther Athelny", "PERSON", 4)])
    assert not together(two, "Mr. Athelny", "Thorpe Athelny") and not together(two, "Mr. Athelny", "Lowther Athelny")
    # a titled given name beside a glued full name ending with it is no family's head ("Louvre Philip")
    philips = [SurfaceForm("Philip", "PERSON", 900, he=300), SurfaceForm("Mr. Philip", "PERSON", 10, he=3),
               SurfaceForm("Philips", "PERSON", 2), SurfaceForm("Louvre Philip", "PERSON", 2),
               SurfaceForm("Philip Carey", "PERSON", 3, he=2), SurfaceForm("Philip Carey", "PERSON", 2, he=1)]
    assert not together(resolve(philips), "Mr. Philip", "Louvre Philip")



# Bleak House: Vholes calls Richard Carstone "Mr. C." in the chapters where he advises him; "Mr. Chadband" is
# another man of that title and initial, said elsewhere
def _vholes() -> list[SurfaceForm]:
    return [SurfaceForm("Richard Carstone", "PERSON", 10, he=4, units=_units("u1", "u30", "u31")),
            SurfaceForm("Mr. Carstone", "PERSON", 20, he=8, units=_units("u30", "u31")),
            SurfaceForm("Mr. Chadband", "PERSON", 40, he=15, units=_units("u12", "u13")),
            SurfaceForm("Mr. C.", "PERSON", 6, units=_units("u30", "u31", "u40"))]


def test_initialled_names_joins_a_title_and_an_initial_to_its_bearer_in_whose_chapters_it_is_said() -> None:
    book = prepare(_vholes(), language="en")
    joins.initialled_names(book)
    # alone, before partial_names has joined "Mr. Carstone" to "Richard Carstone": the titled surname is the bearer
    assert frozenset({"Mr. C.", "Mr. Carstone"}) in joined(book)
    on = resolve(_vholes())
    assert together(on, "Mr. C.", "Richard Carstone", "Mr. Carstone") and not together(on, "Mr. C.", "Mr. Chadband")
    assert rules_of(on, "Mr. C.")[-1] == "initialled_names"
    assert not together(resolve(_vholes(), off={"initialled_names"}), "Mr. C.", "Richard Carstone")


def test_initialled_names_keeps_apart_an_initial_said_once_or_said_beside_two_bearers() -> None:
    # said once ("Mrs. B.", Mr. Bagnet's wife, in a chapter where Mrs. Bucket is named too): too little to go on
    once = [SurfaceForm("Mrs. Bucket", "PERSON", 20, she=6, units=_units("u5")),
            SurfaceForm("Mrs. Bagnet", "PERSON", 30, she=9, units=_units("u6")),
            SurfaceForm("Mrs. B.", "PERSON", 1, units=(("u5", 1),))]
    assert not together(resolve(once), "Mrs. B.", "Mrs. Bucket")
    # two bearers said as much in its chapters; a bearer of another title ("Miss Clare") is none
    two = [*_vholes()[:2], SurfaceForm("Mr. Chadband", "PERSON", 40, he=15, units=_units("u30", "u31")),
           SurfaceForm("Mr. C.", "PERSON", 4, units=_units("u30", "u31"))]
    assert not together(resolve(two), "Mr. C.", "Richard Carstone")
    assert not together(resolve(two), "Mr. C.", "Mr. Chadband")
    women = [SurfaceForm("Miss Clare", "PERSON", 30, she=9, units=_units("u30")),
             SurfaceForm("Mr. C.", "PERSON", 4, units=_units("u30", "u31"))]
    assert not together(resolve(women), "Mr. C.", "Miss Clare")
