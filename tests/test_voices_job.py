"""Background enrolment jobs: progress, cancel, errors, results (with an in-memory work function)."""

from __future__ import annotations

import threading

import pytest

from tray_reader.errors import EnrollmentError
from tray_reader.voices.job import EnrollmentJob, TimeLeft


def _wait_for_fraction(job: EnrollmentJob, fraction: float) -> None:
    for _ in range(500):
        if job.status().fraction == fraction:
            return
        threading.Event().wait(0.01)


def test_a_job_reports_progress_and_returns_its_result():
    gate = threading.Event()

    def work(progress, cancel):
        progress(0.5, "half way")
        gate.wait(5)
        return "voice"

    job = EnrollmentJob(work).start()
    _wait_for_fraction(job, 0.5)
    s = job.status()
    assert (s.fraction, s.message, s.done) == (0.5, "half way", False)
    gate.set()
    assert job.result(5) == "voice" and job.status().done


def test_cancel_reaches_the_work_and_errors_come_back():
    def work(progress, cancel):
        if not cancel.wait(5):
            return "finished"
        raise EnrollmentError("Enrolment was cancelled.")

    job = EnrollmentJob(work).start()
    job.cancel()
    with pytest.raises(EnrollmentError, match="cancelled"):
        job.result(5)
    assert job.status().error == "Enrolment was cancelled."


def test_time_left_follows_the_pace_of_the_progress_after_loading():
    now = [0.0]
    left = TimeLeft(lambda: now[0])
    assert left.update(0.0) is None  # loading the models: no pace yet
    now[0] = 10.0
    assert left.update(0.1) is None  # the first step: the pace starts here
    now[0] = 30.0
    assert left.update(0.3) == pytest.approx(70.0)  # 0.2 in 20 s: 0.7 more takes 70 s
    now[0] = 100.0
    assert left.update(1.0) == 0.0


def test_a_job_says_how_long_it_still_takes():
    gate = threading.Event()

    def work(progress, cancel):
        progress(0.1, "begun")
        threading.Event().wait(0.05)
        progress(0.5, "half way")
        gate.wait(5)
        return "voice"

    job = EnrollmentJob(work).start()
    _wait_for_fraction(job, 0.5)
    left = job.status().seconds_left
    assert left is not None and left > 0
    gate.set()
    job.result(5)
