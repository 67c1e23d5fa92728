"""Planning, evaluation and policy: assertions + evidence -> results -> exit code."""
