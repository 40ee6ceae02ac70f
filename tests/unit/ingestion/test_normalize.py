from __future__ import annotations

import pytest

from ingestion.normalize import (
    check_language,
    clean_surface,
    fold_accents,
    has_person_title,
    hu_stem,
    match_key,
    restore_case,
    split_titles,
    surname_variants,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Anna Pavlovna's", "Anna Pavlovna"),
        ("Anna Pavlovna’s", "Anna Pavlovna"),
        ("Horse Guards'", "Horse Guards"),
        ("the Archduke Ferdinand", "Archduke Ferdinand"),
        ("  Prince \n Andrew,  ", "Prince Andrew"),
        ('"Natasha!"', "Natasha"),
        ("the", "the"),
        ("d'Enghien", "d'Enghien"),
    ],
)
def test_clean_surface_strips_possessive_article_punctuation_and_space(raw: str, expected: str) -> None:
    assert clean_surface(raw) == expected


def test_clean_surface_strips_hungarian_article_only_for_hungarian() -> None:
    assert clean_surface("az Eger", "hu") == "Eger"
    assert clean_surface("a Dobó", "en") == "a Dobó"


def test_match_key_folds_case_and_accents_but_display_keeps_them() -> None:
    assert match_key("Dobó István") == "dobo istvan"
    assert match_key("Hélène") == match_key("HELENE")
    assert fold_accents("Éva") == "Eva"
    assert clean_surface("Dobó István") == "Dobó István"


def test_split_titles_strips_leading_english_titles() -> None:
    assert split_titles(["old", "prince", "bolkonski"], "en") == (["old", "prince"], ["bolkonski"])
    assert split_titles(["mr.", "smith"], "en") == (["mr."], ["smith"])


def test_split_titles_keeps_trailing_english_title_as_part_of_name() -> None:
    # "the Russian Emperor": the trailing word describes, it is not an honorific before a name
    assert split_titles(["russian", "emperor"], "en") == ([], ["russian", "emperor"])


def test_split_titles_strips_hungarian_titles_at_both_ends() -> None:
    assert split_titles(["dobó", "kapitány"], "hu") == (["kapitány"], ["dobó"])
    assert split_titles(["vitéz", "gergely", "uram"], "hu") == (["vitéz", "uram"], ["gergely"])


def test_split_titles_title_only_form_keeps_its_words() -> None:
    assert split_titles(["old", "prince"], "en") == ([], ["old", "prince"])


def test_has_person_title_ignores_descriptive_words() -> None:
    assert has_person_title(["lieutenant", "telyanin"], "en")
    assert has_person_title(["bálint", "úr"], "hu")
    assert not has_person_title(["old", "town"], "en")
    assert not has_person_title(["telyanin"], "en")
    assert not has_person_title(["mother", "moscow"], "en")  # a personified place, not a person's title


ATTESTED = {"gergely", "dobó", "eger", "bornemissza", "cecey", "mekcsey", "vicuska", "éva", "istván", "kapitány"}


@pytest.mark.parametrize(
    ("inflected", "stem"),
    [
        ("gergelyt", "gergely"),
        ("gergelynek", "gergely"),
        ("gergellyel", "gergely"),  # modern orthography: ly+vel -> llyel
        ("gergelylyel", "gergely"),  # 1909 orthography: ly+vel -> lylyel
        ("gergelyé", "gergely"),
        ("gergelyhez", "gergely"),
        ("gergelyről", "gergely"),
        ("dobót", "dobó"),
        ("dobónak", "dobó"),
        ("dobóval", "dobó"),
        ("dobóé", "dobó"),
        ("dobón", "dobó"),
        ("egerbe", "eger"),
        ("egerben", "eger"),
        ("egerből", "eger"),
        ("egert", "eger"),
        ("bornemisszát", "bornemissza"),  # a -> á before a suffix
        ("ceceyt", "cecey"),
        ("mekcseyt", "mekcsey"),
        ("mekcseyvel", "mekcsey"),
        ("vicuskát", "vicuska"),
        ("évádat", "éva"),  # possessive -d + accusative -at
        ("istvánnal", "istván"),  # n+val -> nnal
        ("kapitánynak", "kapitány"),
    ],
)
def test_hu_stem_strips_case_suffixes_to_attested_stem(inflected: str, stem: str) -> None:
    assert hu_stem(inflected, ATTESTED.__contains__) == stem


def test_hu_stem_leaves_token_whose_stem_is_not_attested() -> None:
    assert hu_stem("bálintot", ATTESTED.__contains__) == "bálintot"
    assert hu_stem("gergely", ATTESTED.__contains__) == "gergely"


def test_hu_stem_does_not_read_wife_suffix_ne_as_case_suffixes() -> None:
    # "Ceceyné" is Cecey's wife: -né is not superessive -n followed by possessive -é
    assert hu_stem("ceceyné", ATTESTED.__contains__) == "ceceyné"


def test_hu_stem_prefers_shortest_attested_stem() -> None:
    attested = {"eger", "egerbe"}
    assert hu_stem("egerben", attested.__contains__) == "eger"


def test_restore_case_keeps_capital() -> None:
    assert restore_case("Gergelynek", "gergely") == "Gergely"
    assert restore_case("vitéznek", "vitéz") == "vitéz"


def test_surname_variants_cover_plural_and_other_gender() -> None:
    assert surname_variants("rostov") == {"rostovs", "rostova"}
    assert "bolkonskaya" in surname_variants("bolkonski")
    assert "rostov" in surname_variants("rostova")


def test_check_language_names_valid_options() -> None:
    assert check_language("hu") == "hu"
    with pytest.raises(ValueError, match=r"'fr'.*en, hu"):
        check_language("fr")
