"""The thin command line: one module per sub-command, each parsing its options with argparse (arguments.py), calling
the stages and rendering, and returning the exit status; sizetool/cli.py picks the sub-command."""
