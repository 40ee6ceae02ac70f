"""The pet forms of given names (``ingestion.resolution.rules.nicknames``): the other spellings of English
diminutives, and the rule ``diminutive_spellings`` switched on and off in whole resolutions."""

from __future__ import annotations

from ingestion.resolution import SurfaceForm
from ingestion.resolution.rules.nicknames import (
    clipped_given_names,
    diminutive_spellings,
    spelled_partners,
    spelled_variant,
)

from .crafted import people, resolve, together


def test_diminutive_spellings_writes_the_endings_and_the_doubled_consonant_each_way() -> None:
    assert {"nellie", "nelly", "nelley"} <= diminutive_spellings("nelly")
    assert "steve" in diminutive_spellings("stevie")
    assert "tom" in diminutive_spellings("tommy")
    assert "matt" in diminutive_spellings("mat") and "mat" in diminutive_spellings("matt")
    assert diminutive_spellings("amy") == {"amy"}  # "am" is no name's stem
    assert diminutive_spellings("ellen") == {"ellen"}


def test_spelled_variant_reads_the_nickname_table_through_the_spellings_in_english_only() -> None:
    assert spelled_variant("nelly", "ellen", "en", True)  # the table has "nellie"
    assert not spelled_variant("nelly", "ellen", "en", False)
    assert not spelled_variant("nelly", "ellen", "hu", True)
    assert spelled_variant("stevie", "stephen", "en", True)
    assert spelled_variant("mat", "matthew", "en", True)
    assert spelled_variant("nelly", "nellie", "en", True)
    assert not spelled_variant("lucy", "luke", "en", True)
    assert not spelled_variant("hannah", "jo", "en", True)
    assert "ellen" in spelled_partners("nelly", "en", True)


def test_diminutive_spellings_joins_two_spellings_of_one_womans_name() -> None:
    forms = [
        SurfaceForm("Nelly Dean", "PERSON", 4, she=3),
        SurfaceForm("Ellen Dean", "PERSON", 6, she=4),
        SurfaceForm("Nelly", "PERSON", 76, she=20),
        SurfaceForm("Ellen", "PERSON", 87, she=30),
    ]
    assert together(resolve(forms), "Nelly Dean", "Ellen Dean", "Nelly", "Ellen")
    assert not together(resolve(forms, off={"diminutive_spellings"}), "Nelly Dean", "Ellen Dean")
    stevie = people(("Stephen Dedalus", 10), ("Stephen", 400), ("Stevie", 13))
    assert together(resolve(stevie), "Stevie", "Stephen", "Stephen Dedalus")
    assert not together(resolve(stevie, off={"diminutive_spellings"}), "Stevie", "Stephen")


def test_clipped_given_names_reads_a_name_cut_short_but_not_a_feminine_made_by_an_ending() -> None:
    assert clipped_given_names("balt", "baltus") and clipped_given_names("baltus", "balt")
    assert clipped_given_names("fred", "frederick")  # both men's names in the world's counts
    assert not clipped_given_names("paul", "paula")  # a man's and a woman's
    assert not clipped_given_names("chris", "christina")  # the world knows one of them only
    assert not clipped_given_names("jo", "josephine")  # too short to tell
    assert not clipped_given_names("bart", "baltus") and not clipped_given_names("balt", "balt")


def test_clipped_given_names_joins_two_full_names_of_one_family_in_a_whole_resolution() -> None:
    forms = [SurfaceForm("Balt Van Tassel", "PERSON", 2, he=1), SurfaceForm("Baltus Van Tassel", "PERSON", 2, he=1),
             SurfaceForm("Paul Dombey", "PERSON", 3), SurfaceForm("Paula Dombey", "PERSON", 3)]
    on = resolve(forms)
    assert together(on, "Balt Van Tassel", "Baltus Van Tassel")
    assert not together(on, "Paul Dombey", "Paula Dombey")
    assert not together(resolve(forms, off={"clipped_given_names"}), "Balt Van Tassel", "Baltus Van Tassel")
