"""Hidden from the agent: the PRD's commands, run as a user would run them."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def tracker(tmp_path):
    store = tmp_path / "tasks.json"

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "tracker", *args],
            cwd=ROOT,
            env={"TRACKER_FILE": str(store), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
        )

    run.store = store
    return run


def test_empty_list(tracker):
    result = tracker("list")
    assert result.returncode == 0
    assert result.stdout.strip() == "no tasks"


def test_add_list_done_delete(tracker):
    assert tracker("add", "Write the docs").stdout.strip() == "added 1: Write the docs"
    assert tracker("add", "Ship it").stdout.strip() == "added 2: Ship it"
    assert tracker("done", "1").stdout.strip() == "done 1"
    assert tracker("list").stdout.splitlines() == ["1 [x] Write the docs", "2 [ ] Ship it"]
    assert tracker("delete", "1").stdout.strip() == "deleted 1"
    assert tracker("list").stdout.splitlines() == ["2 [ ] Ship it"]


def test_ids_are_never_reused(tracker):
    tracker("add", "one")
    tracker("add", "two")
    tracker("delete", "2")
    assert tracker("add", "three").stdout.strip() == "added 3: three"


def test_tasks_are_kept_in_the_file(tracker):
    tracker("add", "persist me")
    assert "persist me" in json.dumps(json.loads(tracker.store.read_text()))


@pytest.mark.parametrize("args", [("done", "9"), ("delete", "9"), ("done",), ("add", ""), ("frobnicate",)])
def test_errors_exit_1_on_stderr(tracker, args):
    result = tracker(*args)
    assert result.returncode == 1
    assert result.stderr.strip()
    assert result.stdout == ""
