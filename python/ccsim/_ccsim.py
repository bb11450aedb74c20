"""What ``ccsim._ccsim`` is when the engine has not been built.

``ccsim._ccsim`` is the compiled engine: crates/ccsim-py, which maturin builds into this
directory as ``_ccsim.abi3.so`` (its interface typed in ``_ccsim.pyi``). Python imports an
extension module before a source file of the same name, so this file is imported only
where that build is missing, and says so.
"""

raise ImportError(
    "ccsim's engine (the native module ccsim._ccsim, crates/ccsim-py) is not built: run `make` in the repository root"
)
