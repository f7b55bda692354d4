"""Steps release the GIL: a Python thread keeps counting while they run."""

import threading
import time

import numpy as np

import ferrodyn
from conftest import scene


def counted_during(call):
    """How many counts a Python thread made in the middle 60 % of `call()`'s duration."""
    stamps, stop = [], threading.Event()

    def count():
        n = 0
        while not stop.is_set():
            n += 1
            if n % 100 == 0:
                stamps.append(time.perf_counter())

    counter = threading.Thread(target=count)
    counter.start()
    time.sleep(0.05)
    start = time.perf_counter()
    call()
    end = time.perf_counter()
    stop.set()
    counter.join()
    margin = 0.2 * (end - start)
    return sum(start + margin < t < end - margin for t in stamps), end - start


def test_step_releases_the_gil(chain5):
    data = chain5.new_data()
    counts, seconds = counted_during(lambda: ferrodyn.step(chain5, data, nstep=100_000))
    assert seconds > 0.02
    assert counts > 0


def test_a_gil_holding_call_stops_the_counter():
    # The measure's control: one long C call that holds the GIL (sorting a list) lets
    # nothing count.
    values = np.random.default_rng(1).random(500_000).tolist()
    counts, seconds = counted_during(lambda: sorted(values))
    assert seconds > 0.02
    assert counts == 0


def test_batch_step_releases_the_gil(chain5):
    batch = ferrodyn.Batch(chain5, 4, threads=1)
    counts, _ = counted_during(lambda: batch.step(20_000))
    assert counts > 0


def test_rollout_releases_the_gil(chain5):
    initial = np.zeros((4, 10))
    counts, _ = counted_during(lambda: ferrodyn.rollout(chain5, initial, nstep=20_000, threads=1))
    assert counts > 0


def test_load_of_a_large_scene_is_fine_from_threads():
    models = []
    threads = [threading.Thread(target=lambda: models.append(ferrodyn.load(scene("spin_up")))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(models) == 2 and models[0].nq == models[1].nq
