"""Benchmark reports: a candidate's ``--name`` never overwrites another benchmark's numbers."""

import json

import pytest

from benchmarks import report


def test_a_report_is_written_and_rewritten_by_its_own_benchmark(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(report, "RESULTS", tmp_path)
    report.write_report("candidate", {"benchmark": "read_by_eye", "exact": 10}, ["# first"])
    report.write_report("candidate", {"benchmark": "read_by_eye", "exact": 11}, ["# second"])
    assert json.loads((tmp_path / "candidate.json").read_text())["exact"] == 11
    assert (tmp_path / "candidate.md").read_text() == "# second\n"
    assert "# second" in capsys.readouterr().out


def test_another_benchmarks_report_under_the_name_is_kept(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(report, "RESULTS", tmp_path)
    report.write_report("candidate", {"benchmark": "real_variants", "exact": 374}, ["# variants"])
    with pytest.raises(SystemExit, match="holds real_variants's report.*box_labelled-candidate"):
        report.write_report("candidate", {"benchmark": "box_labelled", "counted": 392}, ["# robot photos"])
    assert json.loads((tmp_path / "candidate.json").read_text())["exact"] == 374
    assert (tmp_path / "candidate.md").read_text() == "# variants\n"
    assert "# robot photos" in capsys.readouterr().out  # the numbers are not lost: printed first


def test_a_report_that_cannot_be_read_or_does_not_say_is_replaced(monkeypatch, tmp_path):
    monkeypatch.setattr(report, "RESULTS", tmp_path)
    (tmp_path / "old.json").write_text("not json")
    (tmp_path / "older.json").write_text(json.dumps({"rows": []}))
    report.write_report("old", {"benchmark": "covered"}, ["# covered"])
    report.write_report("older", {"benchmark": "covered"}, ["# covered"])
    assert report.benchmark_at(tmp_path / "old.json") == report.benchmark_at(tmp_path / "older.json") == "covered"
