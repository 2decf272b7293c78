"""The committed .tflite fixtures are exactly what fixtures/models/make_models.py writes."""

import importlib.util


def test_make_models_reproduces_every_committed_fixture(fixtures_dir):
    script = fixtures_dir / "models" / "make_models.py"
    spec = importlib.util.spec_from_file_location("make_models", script)
    make_models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_models)
    generated = {**make_models.fixtures(), **make_models.arena_fixtures()}
    committed = {p.name: p.read_bytes() for p in (fixtures_dir / "models").glob("*.tflite")}
    assert sorted(generated) == sorted(committed)
    assert [name for name in generated if generated[name] != committed[name]] == []
