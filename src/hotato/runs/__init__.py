"""The application layer: each use case of hotato as a typed library call.

The CLI parses flags, calls one of these and renders what comes back; the public API
(`hotato.api`) and the pytest plugin call the same functions. Nothing here prints, exits or
reads `sys.argv`; a refusal is an InputError.

    assertions    one call graded against an assertions file (`assert run`)
    grader        a long-lived Grader: decoded assertions and an open state, many calls
    conversation  `test run`: one call, trials, or a suite, dispatched from a RunRequest
    call          one call graded against a conversation test (labels, trace authentication)
    trials        a test over a folder of recorded calls (pass@k, pass^k)
    suite         a folder of tests, each against its own call folder
    artifact      binding a run and its evidence into a tamper-evident artifact
    starter       a starter assertions file from a trace or a transcript's claims (`assert init`)
    claims        a call's claims, found and graded against the record (`claims`)
    fleet         what the fleet and `serve` grade through: decoded assertions, their digest,
                  the state check, the Grader, a call folder's files, the Wilson interval,
                  an export's conversion
"""
