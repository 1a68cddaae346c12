"""The sequences of issue 35's findings, run by the model's machine (PROTOCOL §14).

Each test is one sequence of `SyncMachine` steps that lost or wedged something
before facts merged by identity, topic entries as a union and shims stayed
host-local; the teardown settles every host and compares it with the model.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.reliability.sync_machine import SyncMachine

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git")


@pytest.fixture
def machine() -> Iterator[SyncMachine]:
    made = SyncMachine()
    try:
        yield made
    except BaseException:
        shutil.rmtree(made.folder, ignore_errors=True)
        raise
    made.teardown()  # settles every host and compares it with the model


def test_a_topic_entry_added_on_another_host_since_the_last_sync_stays(
    machine: SyncMachine,
) -> None:
    machine.index_add(0, pick=0, category="projects", again=False)
    machine.sync(0)
    machine.sync(1)
    machine.index_add(1, pick=0, category="projects", again=False)
    machine.index_add(0, pick=0, category="decisions", again=False)
    machine.sync(0)
    machine.sync(1)
    machine.sync(0)


def test_a_topic_field_changed_on_one_host_takes_that_host(machine: SyncMachine) -> None:
    machine.index_add(0, pick=0, category="projects", again=False)
    machine.settle_and_check()
    machine.index_set(1, pick=0, status="paused", match=False)
    machine.index_set(0, pick=0, status="active", match=True)
    machine.sync(1)
    machine.sync(0)


def test_the_same_fact_learned_on_two_hosts_under_two_sections_stands_once(
    machine: SyncMachine,
) -> None:
    machine.remember(0, kind="infrastructure", section="Hosts")
    machine.remember_what_another_host_did(1, pick=0, section="Services")
    machine.sync(0)
    machine.sync(1)
    machine.replace(1, pick=0)  # refused while the fact stood twice ("matches 2 lines")
    machine.sync(1)


def test_a_fact_added_after_a_move_is_kept_and_a_replaced_one_stays_replaced(
    machine: SyncMachine,
) -> None:
    for _ in range(3):
        machine.remember(0, kind="project", section=None)
    machine.sync(0)
    machine.sync(1)
    machine.hand_edit(1, kind="project", move=True)  # the third fact moves to the top
    machine.remember(1, kind="project", section=None)
    machine.sync(1)
    machine.replace(0, pick=2)  # the third fact, on the other host
    machine.sync(0)


def test_one_fact_replaced_differently_on_two_hosts_keeps_one(machine: SyncMachine) -> None:
    machine.remember(0, kind="infrastructure", section=None)
    machine.settle_and_check()
    machine.replace(0, pick=0)
    machine.replace(1, pick=0)
    machine.sync(0)
    machine.sync(1)


def test_a_fact_retired_on_one_host_and_learned_again_on_another_stays_retired(
    machine: SyncMachine,
) -> None:
    machine.remember(0, kind="preference", section=None)
    machine.sync(0)
    machine.sync(1)
    machine.remember_what_another_host_did(2, pick=0, section=None)
    machine.retire(1, pick=0)
    machine.sync(1)
    machine.sync(2)


def test_shims_installed_on_two_hosts_never_wedge_sync(machine: SyncMachine) -> None:
    machine.install_scripts(0)
    machine.sync(0)
    machine.install_scripts(1)
    machine.sync(1)
    machine.sync(0)


def test_notes_items_and_lessons_of_three_hosts_all_arrive(machine: SyncMachine) -> None:
    for host in range(3):
        machine.rotate(host)
        machine.append(host)
        machine.learn(host)
    machine.sync(2)
    machine.close_item(2, pick=0)
    machine.next_day()
    machine.append(0)


def test_a_fact_learned_and_retired_between_two_syncs_stays_retired_on_every_host(
    machine: SyncMachine,
) -> None:
    # Found by the model: host 2 learns a fact host 0 also holds, and retires it
    # before its next sync. Its fact file ends as its last sync left it, so git runs
    # no driver on that file and took host 0's version whole: the fact came back.
    machine.remember(0, kind="project", section=None)  # host1 runs birch1 ...
    machine.remember(0, kind="project", section="Services")  # host2 runs cobalt2 ...
    machine.remember_what_another_host_did(2, pick=1, section="Services")  # cobalt2
    machine.sync(2)
    machine.remember_what_another_host_did(2, pick=0, section="Services")  # birch1
    machine.retire(2, pick=0)  # birch1: host 2's file is as its sync left it
