//! A worker's parts, built once from Config.
