"""Window schedules that comparisons inject into the engine instead of the product's, which
sizes windows by the time left and so differs from run to run."""

from __future__ import annotations

from tray_reader.speech.windows import Budget, Schedule, WindowPlan, spans


def growing(plan: WindowPlan, growth: float = 2.0) -> Schedule:
    """Each later window ``growth`` times the one before (up to the plan's), whatever the
    time left: the same windows on every machine and every run."""

    def schedule(_by_time: Budget) -> Budget:
        size = plan.first_frames

        def budget() -> int:
            nonlocal size
            size = min(plan.frames, int(size * growth))
            return size

        return budget

    return schedule


def windows(n_frames: int, plan: WindowPlan, first_frames: int | None = None) -> list[tuple[int, int]]:
    """The [start, end) windows of a chunk of ``n_frames`` under the growing schedule."""
    return list(spans(0, n_frames, plan, first_frames, growing(plan)(lambda: 0)))
