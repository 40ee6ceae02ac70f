"""Issue 38 item 2b: ``Lakehouse.check_confined`` refuses a local lakehouse that a link leads out of, and every
writer meets it (the lock every run, stage and vacuum takes checks it before creating its file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.errors import StorageError
from graph.lakehouse import Lakehouse


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    (tmp_path / "lake" / "_archive" / "documents").mkdir(parents=True)
    (tmp_path / "outside" / "documents").mkdir(parents=True)
    return tmp_path / "lake"


def test_issue_38_links_within_the_lakehouse_are_fine(lake: Path) -> None:
    (lake / "documents").symlink_to(lake / "_archive" / "documents", target_is_directory=True)
    (lake / "_archive" / "self").symlink_to(Path("..") / "_archive")
    Lakehouse.for_root(lake).check_confined()  # no error


@pytest.mark.parametrize("where", ["documents", "documents/_delta_log", "_markers/documents/_SUCCESS", "dangling"])
def test_issue_38_a_link_anywhere_under_the_root_leading_out_is_refused_naming_it(lake: Path, where: str) -> None:
    link = lake / where
    link.parent.mkdir(parents=True, exist_ok=True)
    target = lake.parent / "outside" / ("not_there_yet" if where == "dangling" else "documents")
    link.symlink_to(target)

    with pytest.raises(StorageError) as caught:
        Lakehouse.for_root(lake).check_confined()

    assert caught.value.path == str(link)
    assert str(caught.value).startswith(f"{link} in the lakehouse {lake} is a symbolic link leading outside it;")
    assert "outside/" not in str(caught.value)  # the target is not told (API clients read run errors)


def test_issue_38_a_root_whose_folder_was_replaced_by_a_link_is_refused(lake: Path) -> None:
    storage = Lakehouse.for_root(lake)
    lake.rename(lake.parent / "moved")
    lake.symlink_to(lake.parent / "outside", target_is_directory=True)

    with pytest.raises(StorageError, match=f"^the lakehouse root {lake} no longer leads to the folder it named"):
        storage.check_confined()


def test_issue_38_the_lock_refuses_a_linked_lakehouse_before_writing_anything(lake: Path) -> None:
    from ingestion.errors import LakehouseError
    from ingestion.lock import LakehouseLock

    (lake / "_markers").symlink_to(lake.parent / "outside", target_is_directory=True)

    with pytest.raises(LakehouseError, match="_markers in the lakehouse .* is a symbolic link leading outside it"):
        LakehouseLock(Lakehouse.for_root(lake), run_id="r1", tool="ner_ingestion").acquire()

    assert sorted(p.name for p in lake.iterdir()) == ["_archive", "_markers"]  # no _lock.json
    assert sorted(p.name for p in (lake.parent / "outside").iterdir()) == ["documents"]


def test_issue_38_remote_roots_have_no_links_to_check() -> None:
    Lakehouse.for_root("s3a://bucket/lake").check_confined()  # no error, no request
