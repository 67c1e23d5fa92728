"""Fleet grading: every call of a night graded against one assertions file, resumably, on a
local process pool or a Dask cluster, with Parquet results queried by DuckDB.

    manifest   the calls: a folder of call folders, or a JSONL / CSV / Parquet manifest
    variables  `${call.col}` references in assertions, checked and bound per call
    files      reading a call's files (local or fsspec URLs) and digesting them
    worker     grading one batch of calls, with a hotato.runs Grader kept per worker process
    execute    the engines: a local process pool, or a Dask distributed scheduler
    store      the results folder: atomic part files, resume keys
    grade      the use case `hotato fleet grade` calls
    summary    per-assertion rates with Wilson intervals (DuckDB)
    diff       two runs compared with a two-proportion test
    pull       calls listed and downloaded from a voice platform's API

The heavy libraries (pyarrow, duckdb, dask, fsspec) are the `fleet` extra and load only here.
"""
