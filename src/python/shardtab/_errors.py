"""_errors.py - the library's status codes, shardtab.Error, and the text that
goes to the library (its messages, made from anything a user hands us)."""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
from ._lib import lib

SUCCESS = 0
ERR_INVALID_ARG = 1
ERR_VERIFY = 10
ERR_TIMEOUT = 11


class Error(Exception):
    """A failed call. status: the library's status code; status_name: its
    name; message: the library's message (agreed across the ranks for a
    collective call)."""

    def __init__(self, status, message):
        self.status = status
        self.status_name = lib.shardtab_status_string(status).decode()
        self.message = message
        super().__init__(f"{message} ({self.status_name})")


def _last_error():
    return lib.shardtab_last_error().decode(errors="replace")


def _text(thing):
    """str(thing), or what thing is when even that raises."""
    try:
        return str(thing)
    except Exception as error:  # noqa: BLE001 - a message must come out of anything
        return f"(a {type(thing).__name__} whose str() raised {type(error).__name__})"


def _c_text(text):
    """text as the library's bytes, whatever it holds: a character UTF-8
    cannot encode (a lone surrogate, from a file name or os.fsdecode) is
    written as its escape, so that every message reaches the agreement."""
    return text.encode("utf-8", errors="backslashreplace")


def _record(status, message):
    """Makes message, as _last_error gave it (after this rank's own prefix),
    this thread's last error again, without a second prefix."""
    lib.shardtab_error_set_message(status, b"")
    prefix = _last_error()
    if prefix and message.startswith(prefix):
        message = message[len(prefix) :]
    return lib.shardtab_error_set_message(status, _c_text(message))


def _agree_on(comm, why, table=None):
    """Collective over comm (a Fortran handle): when any rank's why (a
    message, or None) is not None, every rank raises Error with the first
    such rank's, before anything else is called. Given the table (a live
    handle over comm), the wait is bounded by its patience
    (shardtab_table_agree): a rank that never comes ends the job."""
    status = SUCCESS
    if why is not None:
        status = lib.shardtab_error_set_message(ERR_INVALID_ARG, _c_text(why))
    _check(_agree(comm, status, table))


def _agree(comm, status, table=None):
    """shardtab_agree over comm, or bounded over the table's ranks."""
    if table is not None:
        return lib.shardtab_table_agree(table, status)
    return lib.shardtab_agree_f(comm, status)


def _check(status):
    if status != SUCCESS:
        raise Error(status, _last_error())
