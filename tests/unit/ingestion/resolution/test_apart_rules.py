"""The rules that keep apart (``ingestion.resolution.rules.apart``): each predicate alone on a prepared book of
crafted forms, and switched off in a whole resolution (which then joins what it kept apart)."""

from __future__ import annotations

from ingestion.resolution import SurfaceForm, prepare
from ingestion.resolution.evidence import usual_sex
from ingestion.resolution.rules import apart, joins, partial

from .crafted import index_of, people, resolve, together


def test_ranks_apart_keeps_a_miss_off_the_lady_of_her_name() -> None:
    forms = people(("Lady Catherine", 110), ("Lady Catherine de Bourgh", 10), ("Miss de Bourgh", 15))
    book = prepare(forms, language="en")
    lady, miss = index_of(book, "Lady Catherine de Bourgh"), index_of(book, "Miss de Bourgh")
    assert apart.ranks_apart(book, lady, miss)
    assert not apart.ranks_apart(book, lady, index_of(book, "Lady Catherine"))
    assert not together(resolve(forms), "Miss de Bourgh", "Lady Catherine de Bourgh")
    assert together(resolve(forms, off={"ranks_apart"}), "Miss de Bourgh", "Lady Catherine de Bourgh")


def test_rank_fits_keeps_a_generals_rank_off_a_woman() -> None:
    forms = people(("General Shaw", 5), ("Aunt Shaw", 4))
    book = prepare(forms, language="en")
    general, aunt = book.nodes[index_of(book, "General Shaw")], book.groups[index_of(book, "Aunt Shaw")]
    assert not apart.rank_fits(book, general.titles, aunt.gender, set())
    assert apart.rank_fits(book, general.titles, "m", set())  # beside a man's title it is no objection
    assert not together(resolve(forms), "General Shaw", "Aunt Shaw")
    assert together(resolve(forms, off={"rank_fits"}), "General Shaw", "Aunt Shaw")


def test_surname_of_the_other_sex_keeps_a_she_surname_off_a_mister() -> None:
    forms = [SurfaceForm("Peggotty", "PERSON", 600, he=10, she=200), SurfaceForm("Mr. Peggotty", "PERSON", 250, he=80),
             SurfaceForm("Clara Peggotty", "PERSON", 5, she=2), SurfaceForm("Daniel Peggotty", "PERSON", 3, he=1),
             SurfaceForm("Ham Peggotty", "PERSON", 5, he=2), SurfaceForm("Ham", "PERSON", 150, he=50, she=1)]
    book = prepare(forms, language="en")
    assert apart.surname_of_the_other_sex(book, index_of(book, "Peggotty"), index_of(book, "Mr. Peggotty"))
    assert together(resolve(forms), "Peggotty", "Clara Peggotty")
    assert together(resolve(forms, off={"surname_of_the_other_sex"}), "Peggotty", "Mr. Peggotty")


def test_given_name_of_the_other_sex_keeps_a_womans_name_off_a_mister_of_it() -> None:
    forms = [SurfaceForm("Camilla", "PERSON", 22, she=5), SurfaceForm("Mr. Camilla", "PERSON", 3)]
    book = prepare(forms, language="en")
    assert apart.given_name_of_the_other_sex(book, index_of(book, "Camilla"), index_of(book, "Mr. Camilla"))
    assert not together(resolve(forms), "Camilla", "Mr. Camilla")
    assert together(resolve(forms, off={"given_name_of_the_other_sex"}), "Camilla", "Mr. Camilla")
    # its pronouns against its bearers' usual sex say nothing ("Mary!" he said), nor do they alone of a name the
    # world's counts do not know
    for text, pronouns in (("Mary", {"he": 5}), ("Zelphine", {"she": 5})):
        book = prepare([SurfaceForm(text, "PERSON", 22, **pronouns), SurfaceForm(f"Mr. {text}", "PERSON", 3)],
                       language="en")
        assert not apart.given_name_of_the_other_sex(book, index_of(book, text), index_of(book, f"Mr. {text}"))


def test_a_womans_name_under_mistress_joins_her_married_title_not_her_husbands() -> None:
    # "Mistress" is a woman's title, no rank a woman rarely held (``rank_fits``)
    forms = [SurfaceForm("Camilla", "PERSON", 22, she=5), SurfaceForm("Mistress Camilla", "PERSON", 3),
             SurfaceForm("Mrs. Camilla", "PERSON", 2, she=2), SurfaceForm("Mr. Camilla", "PERSON", 3)]
    resolution = resolve(forms)
    assert together(resolution, "Camilla", "Mistress Camilla", "Mrs. Camilla")
    assert not together(resolution, "Camilla", "Mr. Camilla")


def test_his_wifes_name_keeps_a_man_off_the_married_woman_named_by_him() -> None:
    forms = [SurfaceForm("Mrs. John Dashwood", "PERSON", 20, she=8), SurfaceForm("John Dashwood", "PERSON", 30, he=15)]
    book = prepare(forms, language="en")
    assert apart.his_wifes_name(book, index_of(book, "John Dashwood"), index_of(book, "Mrs. John Dashwood"))
    assert not together(resolve(forms), "John Dashwood", "Mrs. John Dashwood")
    assert together(resolve(forms, off={"his_wifes_name"}), "John Dashwood", "Mrs. John Dashwood")


def test_named_apart_keeps_a_titled_surname_off_the_brother_titled_with_his_given_name() -> None:
    forms = [SurfaceForm("Mr. Knightley", "PERSON", 390, he=120, she=5), SurfaceForm("Knightley", "PERSON", 20, he=6),
             SurfaceForm("Mr. John Knightley", "PERSON", 45, he=15, she=2),
             SurfaceForm("John Knightley", "PERSON", 10, he=3), SurfaceForm("George Knightley", "PERSON", 4, he=3)]
    book = prepare(forms, language="en")
    partial.partial_names(book)  # the full names gathered, as when the rule is asked
    john = book.root(index_of(book, "Mr. John Knightley"))
    assert apart.named_apart(book, index_of(book, "Mr. Knightley"), john)
    assert together(resolve(forms), "Mr. Knightley", "George Knightley")
    assert together(resolve(forms, off={"named_apart"}), "Mr. Knightley", "Mr. John Knightley")


def test_elsewhere_keeps_a_lone_name_off_a_full_name_never_said_in_its_chapters() -> None:
    forms = [SurfaceForm("Princess Drubetskaya", "PERSON", 6, units=(("u1", 2), ("u2", 2), ("u3", 2))),
             SurfaceForm("Julie Drubetskaya", "PERSON", 2, she=4, units=(("u40", 2),))]
    book = prepare(forms, language="en")
    assert apart.elsewhere(book, index_of(book, "Princess Drubetskaya"), index_of(book, "Julie Drubetskaya"))
    assert not together(resolve(forms), "Princess Drubetskaya", "Julie Drubetskaya")
    assert together(resolve(forms, off={"elsewhere"}), "Princess Drubetskaya", "Julie Drubetskaya")
    # without chapters nothing is known of them
    plain = prepare([SurfaceForm(f.text, f.label, f.count, she=f.she) for f in forms], language="en")
    assert not apart.elsewhere(plain, index_of(plain, "Princess Drubetskaya"), index_of(plain, "Julie Drubetskaya"))


def test_established_keeps_a_hungarian_given_name_off_a_dominant_home_beside_another_family() -> None:
    forms = people(("István", 100), ("Dobó István", 60), ("Mekcsey István", 5), label="PER")
    book = prepare(forms, language="hu")
    assert apart.established(book, index_of(book, "Mekcsey István"), index_of(book, "Dobó István"))
    assert not together(resolve(forms, "hu"), "István", "Dobó István")
    assert together(resolve(forms, "hu", off={"established"}), "István", "Dobó István")


def test_shared_surnames_keep_a_surname_seen_in_the_plural_off_one_bearer() -> None:
    forms = people(("Nicholas Rostov", 6), ("Rostov", 50), ("Rostovs", 3))
    assert prepare(forms, language="en").words.shared_surnames == {"rostov"}
    assert prepare(forms, language="en", disabled_rules={"shared_surnames"}).words.shared_surnames == set()
    assert not together(resolve(forms), "Rostov", "Nicholas Rostov")
    assert together(resolve(forms, off={"shared_surnames"}), "Rostov", "Nicholas Rostov")


def test_ranks_apart_keeps_two_kinds_of_office_each_said_again_and_again_apart() -> None:
    forms = people(("Colonel Pyncheon", 28), ("Judge Pyncheon", 82), ("General Pyncheon", 3), ("Mr. Pyncheon", 40))
    book = prepare(forms, language="en")
    colonel, judge = index_of(book, "Colonel Pyncheon"), index_of(book, "Judge Pyncheon")
    assert apart.ranks_apart(book, colonel, judge)
    assert not apart.ranks_apart(book, colonel, index_of(book, "General Pyncheon"))  # a colonel is made a general
    assert not apart.ranks_apart(book, judge, index_of(book, "Mr. Pyncheon"))  # a plain title holds no office
    off = prepare(forms, language="en", disabled_rules={"ranks_apart"})
    assert not apart.ranks_apart(off, index_of(off, "Colonel Pyncheon"), index_of(off, "Judge Pyncheon"))


def test_rank_fits_lets_a_kin_title_fit_a_woman() -> None:
    forms = people(("Aunt Fanny Minafer", 2), ("Miss Fanny Minafer", 6), ("Fanny Minafer", 15), ("Aunt Fanny", 47))
    book = prepare(forms, language="en")
    assert apart.rank_fits(book, {"aunt"}, "fu", {"miss"})  # a kinship, no rank
    assert apart.rank_fits(book, {"cousin", "nurse"}, "f", set())
    assert not apart.rank_fits(book, {"general"}, "fu", {"miss"})
    assert together(resolve(forms), "Aunt Fanny Minafer", "Miss Fanny Minafer", "Aunt Fanny", "Fanny Minafer")


def test_kin_titles_apart_keeps_an_uncle_off_his_namesake_nephew() -> None:
    forms = people(("George", 700), ("Uncle George", 20), ("George Sharon", 30), ("Uncle George Sharon", 4),
                   ("George Minafer", 10), ("Georgie Minafer", 7), ("Georgie", 150))
    book = prepare(forms, language="en")
    assert apart.kin_titles_apart(book, index_of(book, "George"), index_of(book, "Uncle George"))
    assert not apart.kin_titles_apart(book, index_of(book, "George"), index_of(book, "George Minafer"))
    resolved = resolve(forms)
    assert together(resolved, "Uncle George", "George Sharon", "Uncle George Sharon")
    assert together(resolved, "George", "George Minafer", "Georgie")
    assert not together(resolved, "George", "Uncle George")
    assert together(resolve(forms, off={"kin_titles_apart"}), "George", "Uncle George")


def test_kin_titles_apart_keeps_an_aunt_off_a_family_named_in_full_and_only_there() -> None:
    forms = people(("Aunt March", 69), ("Mrs. March", 140), ("Jo March", 3), ("Amy March", 2), ("Jo", 1300),
                   ("Amy", 300), ("Aunt Carrol", 8), ("Mrs. Carrol", 7), ("John", 300), ("Cousin John", 40),
                   ("John Jarndyce", 30))
    book = prepare(forms, language="en")
    assert apart.kin_titles_apart(book, index_of(book, "Aunt March"), index_of(book, "Mrs. March"))
    assert apart.kin_titles_apart(book, index_of(book, "Aunt March"), index_of(book, "Jo March"))
    resolved = resolve(forms)
    assert not together(resolved, "Aunt March", "Mrs. March")
    assert not together(resolved, "Aunt March", "Jo March")
    # one bearer of the name: the kin title is one more way to say it
    assert together(resolved, "Aunt Carrol", "Mrs. Carrol")
    assert together(resolved, "Cousin John", "John", "John Jarndyce")
    assert together(resolve(forms, off={"kin_titles_apart"}), "Aunt March", "Mrs. March")


def test_nickname_chains_keeps_a_common_name_off_a_rare_variant_gathered_elsewhere() -> None:
    forms = people(("Jo", 1300), ("Joanna", 1), ("Hannah", 118), ("Jo March", 3), ("Meg March", 3))
    book = prepare(forms, language="en")
    assert apart.nickname_chains(book, index_of(book, "Hannah"), index_of(book, "Joanna"))  # a form of both
    assert not apart.nickname_chains(book, index_of(book, "Joanna"), index_of(book, "Jo"))
    resolved = resolve(forms)
    assert together(resolved, "Joanna", "Jo", "Jo March")
    assert not together(resolved, "Hannah", "Jo")
    assert together(resolve(forms, off={"nickname_chains"}), "Hannah", "Jo")


def test_his_wifes_name_reads_a_lone_given_names_sex_from_the_books_full_names() -> None:
    # "John" is called out to as often as spoken of: its pronouns say nothing, its full name "John Brooke" does
    forms = [
        SurfaceForm("John", "PERSON", 150, he=54, she=30),
        SurfaceForm("John Brooke", "PERSON", 5, he=2),
        SurfaceForm("Mrs. John Brooke", "PERSON", 3, she=1),
    ]
    book = prepare(forms, language="en")
    assert apart.his_wifes_name(book, index_of(book, "John"), index_of(book, "Mrs. John Brooke"))
    assert together(resolve(forms), "John", "John Brooke")
    assert not together(resolve(forms), "John", "Mrs. John Brooke")
    assert together(resolve(forms, off={"his_wifes_name"}), "John", "Mrs. John Brooke")


def test_his_wifes_name_keeps_the_wife_named_by_him_off_the_man() -> None:
    forms = [SurfaceForm("Theobald", "PERSON", 428, he=150), SurfaceForm("Theobald Pontifex", "PERSON", 3, he=1),
             SurfaceForm("Mrs Theobald", "PERSON", 7, she=3), SurfaceForm("Christina", "PERSON", 190, she=70)]
    book = prepare(forms, language="en")
    assert apart.his_wifes_name(book, index_of(book, "Mrs Theobald"), index_of(book, "Theobald Pontifex"))
    assert not together(resolve(forms), "Mrs Theobald", "Theobald")
    assert together(resolve(forms), "Theobald", "Theobald Pontifex")
    assert together(resolve(forms, off={"his_wifes_name"}), "Mrs Theobald", "Theobald")


def _father_and_son(said_together: int) -> list[SurfaceForm]:
    """A father known as "Mr Dedalus" and his son "Stephen" (once in full), said in one sentence that many times."""
    return [
        SurfaceForm("Mr Dedalus", "PERSON", 70, he=20, cooccurring=(("Stephen", said_together),)),
        SurfaceForm("Stephen", "PERSON", 400, he=90, cooccurring=(("Mr Dedalus", said_together),)),
        SurfaceForm("Stephen Dedalus", "PERSON", 5, he=2),
    ]


def test_said_together_keeps_a_titled_father_off_his_son_known_by_his_given_name() -> None:
    forms = _father_and_son(said_together=4)
    book = prepare(forms, language="en")
    father, son = index_of(book, "Mr Dedalus"), index_of(book, "Stephen Dedalus")
    # the son's home is weighed with his given name said alone, which has not joined it yet
    assert apart.said_together(book, father, son) and apart.said_together(book, son, father)
    resolution = resolve(forms)
    assert together(resolution, "Stephen", "Stephen Dedalus")
    assert not together(resolution, "Mr Dedalus", "Stephen Dedalus")
    assert together(resolve(forms, off={"said_together"}), "Mr Dedalus", "Stephen", "Stephen Dedalus")


def test_said_together_twice_or_between_forms_of_one_name_is_no_evidence() -> None:
    # an apposition said twice ("Mr Dedalus, Stephen, ...") keeps nothing apart
    book = prepare(_father_and_son(said_together=2), language="en")
    assert not apart.said_together(book, index_of(book, "Mr Dedalus"), index_of(book, "Stephen Dedalus"))
    # one name said again in a sentence ("Mr. Snagsby ... Snagsby") and two untitled names ("Napoleon ...
    # Bonaparte") are one person's forms, however often
    forms = [SurfaceForm("Mr. Snagsby", "PERSON", 300, he=60, cooccurring=(("Snagsby", 6),)),
             SurfaceForm("Snagsby", "PERSON", 40, he=9, cooccurring=(("Mr. Snagsby", 6),)),
             SurfaceForm("Napoleon", "PERSON", 900, he=200, cooccurring=(("Bonaparte", 9),)),
             SurfaceForm("Bonaparte", "PERSON", 80, he=20, cooccurring=(("Napoleon", 9),)),
             SurfaceForm("Napoleon Bonaparte", "PERSON", 6, he=2)]
    book = prepare(forms, language="en")
    assert not apart.said_together(book, index_of(book, "Snagsby"), index_of(book, "Mr. Snagsby"))
    assert not apart.said_together(book, index_of(book, "Bonaparte"), index_of(book, "Napoleon Bonaparte"))
    assert together(resolve(forms), "Bonaparte", "Napoleon", "Napoleon Bonaparte")


def test_said_together_leaves_a_surname_mostly_said_bare_to_the_family_member_it_names() -> None:
    # "Bezukhov" (bare, 39) joined its titled form (24), which the father's scenes say beside "Pierre": the bare
    # surname is how the book calls Pierre, so the title's sentences do not keep the group off him
    forms = [SurfaceForm("Count Bezukhov", "PERSON", 24, he=8, cooccurring=(("Pierre", 8),)),
             SurfaceForm("Bezukhov", "PERSON", 39, he=12),
             SurfaceForm("Pierre", "PERSON", 1800, he=400, cooccurring=(("Count Bezukhov", 8),)),
             SurfaceForm("Pierre Bezukhov", "PERSON", 3, he=1)]
    book = prepare(forms, language="en")
    joins.same_name_titles(book)
    assert not apart.said_together(book, index_of(book, "Bezukhov"), index_of(book, "Pierre Bezukhov"))
    # titled mostly, the same sentences keep it apart
    forms[0] = SurfaceForm("Count Bezukhov", "PERSON", 60, he=20, cooccurring=(("Pierre", 8),))
    book = prepare(forms, language="en")
    joins.same_name_titles(book)
    assert apart.said_together(book, index_of(book, "Bezukhov"), index_of(book, "Pierre Bezukhov"))


def test_said_together_leaves_a_miss_and_a_wife_named_by_her_husband_to_the_other_rules() -> None:
    # the young woman titled in speech and named in the narration: one person however often said together
    forms = [SurfaceForm("Miss Hale", "PERSON", 140, she=30, cooccurring=(("Margaret", 5),)),
             SurfaceForm("Margaret", "PERSON", 1400, she=300, cooccurring=(("Miss Hale", 5),)),
             SurfaceForm("Margaret Hale", "PERSON", 4, she=1)]
    book = prepare(forms, language="en")
    assert not apart.said_together(book, index_of(book, "Miss Hale"), index_of(book, "Margaret Hale"))
    assert together(resolve(forms), "Miss Hale", "Margaret", "Margaret Hale")
    # "Mrs. Osborne" said beside her husband "George" is not kept off "Mrs. George Osborne": his given name there
    # is no name of hers
    forms = [SurfaceForm("Mrs. Osborne", "PERSON", 60, she=20, cooccurring=(("George", 5),)),
             SurfaceForm("George", "PERSON", 500, he=100, cooccurring=(("Mrs. Osborne", 5),)),
             SurfaceForm("Mrs. George Osborne", "PERSON", 11, she=4)]
    book = prepare(forms, language="en")
    assert not apart.said_together(book, index_of(book, "Mrs. Osborne"), index_of(book, "Mrs. George Osborne"))


PRICES = [SurfaceForm("Miss Price", "PERSON", 39, he=11, she=11), SurfaceForm("Fanny Price", "PERSON", 23, he=4, she=6),
          SurfaceForm("Mrs. Price", "PERSON", 1, she=1), SurfaceForm("Fanny", "PERSON", 9),
          SurfaceForm("Albert Price", "PERSON", 11, he=3)]


def test_usual_sex_reads_no_sex_from_a_title_said_once_among_many_mentions() -> None:
    # "Mrs. Price", once, joins "Fanny Price" first (the rarer first); it must not make her a married woman whom the
    # "Miss Price" said 39 times cannot be
    on = resolve(PRICES)
    assert together(on, "Miss Price", "Fanny Price") and not together(on, "Miss Price", "Albert Price")
    assert not together(resolve(PRICES, off={"usual_sex"}), "Miss Price", "Fanny Price")
    book = prepare(PRICES, language="en")
    fanny, mrs = index_of(book, "Fanny Price"), index_of(book, "Mrs. Price")
    book.union(mrs, fanny, "test")
    assert book.nodes[fanny].genders == {"fm"} and book.genders(fanny) == set()
    assert usual_sex(book.nodes[mrs]) == {"fm"}  # said once of a name said once, it counts


def test_usual_sex_keeps_a_title_said_again_however_rare_beside_the_bare_name() -> None:
    # "Prince Kutuzov", 40 of 540 mentions: a man still, so the bare surname is his
    forms = [SurfaceForm("Kutuzov", "PERSON", 500), SurfaceForm("Prince Kutuzov", "PERSON", 40),
             SurfaceForm("Countess Kutuzova", "PERSON", 2)]
    book = prepare(forms, language="en")
    prince, bare = index_of(book, "Prince Kutuzov"), index_of(book, "Kutuzov")
    book.union(bare, prince, "test")
    assert book.genders(prince) == {"m"}


def test_nickname_of_a_one_off_keeps_a_pet_form_off_a_full_name_said_once() -> None:
    forms = [SurfaceForm("Emma", "PERSON", 26, he=12, she=3), SurfaceForm("Emily Wilkinson", "PERSON", 1, he=1),
             SurfaceForm("Miss Wilkinson", "PERSON", 99, she=45), SurfaceForm("Emily", "PERSON", 3)]
    book = prepare(forms, language="en")
    assert apart.nickname_of_a_one_off(book, index_of(book, "Emily Wilkinson"))
    assert not together(resolve(forms), "Emma", "Emily Wilkinson")
    assert together(resolve(forms, off={"nickname_of_a_one_off"}), "Emma", "Emily Wilkinson")
    # a full name said again keeps its pet form: "Pip" is "Philip Pirrip"
    pip = [SurfaceForm("Pip", "PERSON", 259, he=80), SurfaceForm("Philip Pirrip", "PERSON", 3, he=1)]
    assert together(resolve(pip), "Pip", "Philip Pirrip")
