"""CLI: python -m bench.synthetic_forms --out DIR --count N --seed S [--design NAME ...]"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.synthetic_forms.generate import ALL_DESIGNS, generate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=110)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--design",
        action="append",
        choices=sorted(ALL_DESIGNS),
        help="only this design (repeat for several; the unseen designs are generated only so)",
    )
    args = parser.parse_args(argv)
    manifest = generate(args.out, args.count, args.seed, args.design)
    print(f"{len(manifest)} documents in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
