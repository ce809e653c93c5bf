"""The same batch as a Ray Job: submitted from a laptop's notebook, run by the cluster, logs followed.

    job_id = run_as_job(["s3://bucket/invoices/"], ["invoice_number", "total"],
                        out="s3://bucket/results/", address="http://head-node:8265")

The job runs this module (`python -m extraction.jobs.ray_jobs`) on the cluster's head node: it reads the
documents, extracts them with `extraction.jobs.dataset` (the API's engines and limits, one row per
document) and writes the rows to `out` as Parquet (or JSON Lines). The cluster's nodes need the
`agentry` package installed (cluster.yaml does) and read the sources themselves: give URLs or paths
they can see.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import IO, Any

from core.infra.settings import get_settings
from extraction.jobs.ray_session import enable_token_auth, running_service_ray

#: The Ray Job SDK's own default: the dashboard of a Ray on this machine.
DEFAULT_DASHBOARD = "http://127.0.0.1:8265"


def entrypoint(
    sources: Sequence[str],
    fields: Sequence[str],
    out: str,
    *,
    output_format: str = "parquet",
    workers: int | None = None,
    timeout_seconds: float | None = None,
    python: str = "python",
    ray_address: str | None = None,
) -> str:
    """The shell command the job runs; with `ray_address`, its driver joins that Ray."""
    command = ["env", f"RAY_ADDRESS={ray_address}"] if ray_address else []
    command += [python, "-m", "extraction.jobs.ray_jobs", "--fields", ",".join(fields), "--out", out]
    command += ["--format", output_format]
    if workers:
        command += ["--workers", str(workers)]
    if timeout_seconds:
        command += ["--timeout", f"{timeout_seconds:g}"]
    return shlex.join([*command, "--", *sources])


def job_client(address: str | None = None) -> Any:
    """A `JobSubmissionClient` of `address` (a dashboard URL); by default the dashboard of the
    `agentry up` running on this data dir, else Ray's default. Token authentication is set up as
    for joining the cluster."""
    from ray.job_submission import JobSubmissionClient

    record = running_service_ray(get_settings().data_dir)
    enable_token_auth(record)
    return JobSubmissionClient(address or (record and record.dashboard_url) or DEFAULT_DASHBOARD)


def job_driver(address: str | None) -> tuple[str, str | None]:
    """The interpreter the job runs, and the Ray its driver must join.

    A cluster's nodes have `python` with agentry installed, and one Ray each, which the job's
    driver finds by itself. The service on this machine runs with this very interpreter (a venv's,
    not on the job's PATH), and Ray's job supervisor would hand the driver the newest Ray on the
    machine, which need not be the service's: the driver is told the service's address."""
    record = running_service_ray(get_settings().data_dir) if address is None else None
    if record is not None:
        return sys.executable, record.address
    return "python", None


def submit_extraction(
    sources: Sequence[str],
    fields: Sequence[str],
    out: str,
    *,
    address: str | None = None,
    output_format: str = "parquet",
    workers: int | None = None,
    timeout_seconds: float | None = None,
    runtime_env: dict[str, Any] | None = None,
) -> str:
    """Submit the batch as a Ray Job; returns its id at once."""
    python, ray_address = job_driver(address)
    command = entrypoint(
        sources,
        fields,
        out,
        output_format=output_format,
        workers=workers,
        timeout_seconds=timeout_seconds,
        python=python,
        ray_address=ray_address,
    )
    # The driver only orchestrates: it holds no CPU the documents need.
    job_id: str = job_client(address).submit_job(
        entrypoint=command, runtime_env=runtime_env, entrypoint_num_cpus=0
    )
    return job_id


async def follow_job_async(job_id: str, *, address: str | None = None, stream: IO[str] | None = None) -> str:
    """Copy the job's logs to `stream` (standard output) until it ends; returns its final status."""
    client = job_client(address)
    sink = stream or sys.stdout
    async for lines in client.tail_job_logs(job_id):
        sink.write(lines)
        sink.flush()
    status = str(client.get_job_status(job_id))
    sink.write(f"job {job_id}: {status}\n")
    return status


def follow_job(job_id: str, *, address: str | None = None, stream: IO[str] | None = None) -> str:
    """`follow_job_async` from plain code or a notebook cell."""
    from extraction.jobs.batch import run_blocking

    return run_blocking(lambda: follow_job_async(job_id, address=address, stream=stream))


def run_as_job(
    sources: Sequence[str],
    fields: Sequence[str],
    out: str,
    *,
    address: str | None = None,
    stream: IO[str] | None = None,
    **options: Any,
) -> str:
    """Submit the batch, stream its logs until it ends, and return the job's id."""
    job_id = submit_extraction(sources, fields, out, address=address, **options)
    follow_job(job_id, address=address, stream=stream)
    return job_id


def main(argv: list[str] | None = None) -> int:
    """What the job runs: extract `sources` into `--out`, one row per document."""
    from ray.data.expressions import col

    from extraction.jobs.batch import field_names
    from extraction.jobs.dataset import ERROR_COLUMN, extract_dataset, read_documents

    parser = argparse.ArgumentParser(prog="python -m extraction.jobs.ray_jobs")
    parser.add_argument("sources", nargs="+")
    parser.add_argument("--fields", required=True)
    parser.add_argument("--out", required=True, help="a folder or URL the rows are written to")
    parser.add_argument("--format", choices=["parquet", "json"], default="parquet")
    parser.add_argument("--workers", type=int)
    parser.add_argument("--timeout", type=float)
    args = parser.parse_args(argv)
    names = field_names(args.fields.split(","))
    rows = extract_dataset(
        read_documents(args.sources), names, workers=args.workers, timeout_seconds=args.timeout
    ).materialize()
    if args.format == "json":
        rows.write_json(args.out)
    else:
        rows.write_parquet(args.out)
    failed = rows.filter(expr=col(ERROR_COLUMN).is_not_null()).count()
    sys.stdout.write(f"{rows.count() - failed} of {rows.count()} documents extracted into {args.out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
