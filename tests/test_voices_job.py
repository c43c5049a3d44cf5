"""Background enrolment jobs: progress, cancel, errors, results (with an in-memory work function)."""

from __future__ import annotations

import threading

import pytest

from tray_reader.errors import EnrollmentError
from tray_reader.voices.job import EnrollmentJob


def test_a_job_reports_progress_and_returns_its_result():
    gate = threading.Event()

    def work(progress, cancel):
        progress(0.5, "half way")
        gate.wait(5)
        return "voice"

    job = EnrollmentJob(work).start()
    for _ in range(500):
        if job.status().fraction == 0.5:
            break
        threading.Event().wait(0.01)
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
