import unittest
from pathlib import Path

import tomli

DATA_DIR = Path(__file__).parent / "data" / "extras"

INVALID_FILES = tuple((DATA_DIR / "invalid").glob("**/*.toml"))


class TestExtras(unittest.TestCase):
    def test_invalid(self):
        for invalid in INVALID_FILES:
            with self.subTest(msg=invalid.stem):
                toml_str = invalid.read_text(encoding="utf-8")
                with self.assertRaises(tomli.TOMLDecodeError):
                    tomli.loads(toml_str)


if __name__ == "__main__":
    unittest.main()
