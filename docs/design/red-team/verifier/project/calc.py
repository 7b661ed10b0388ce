def factor(n):
    """The two prime factors of the semiprime `n`, smaller first."""
    raise NotImplementedError
