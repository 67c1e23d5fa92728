"""Merging bundled packs into a run (`--pack NAME`): ids must not collide."""

from __future__ import annotations

from hotato.engine.loader import AssertionSet
from hotato.model.errors import Problem, UsageError


def merge_packs(assertions: AssertionSet, names: list[str]) -> AssertionSet:
    if not names:
        return assertions
    from hotato.kinds._packs import load_pack

    specs = list(assertions.specs)
    origins = dict(assertions.origins)
    problems: list[Problem] = []
    for name in names:
        pack = load_pack(name)
        label = f"pack {pack.info.name}@{pack.info.version}"
        for spec in pack.specs:
            if spec.id in origins:
                problems.append(
                    Problem(
                        f"id {spec.id!r} from {label} collides with one in {origins[spec.id]}",
                        path=spec.id,
                    )
                )
                continue
            origins[spec.id] = label
            specs.append(spec)
    if problems:
        raise UsageError(problems)
    return AssertionSet(specs, assertions.policy, assertions.source, origins)
