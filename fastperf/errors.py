"""The exception fastperf raises for bad input."""


class InputError(ValueError):
    """Bad input: a missing column, a wrong type, an unreadable file.

    The message names the column, group or file at fault and, where there is one, the fix.
    The command line turns it into exit status 2 with the message on one line.
    """
