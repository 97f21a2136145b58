//! The declarations of coordsh's `coordsh_plugin.h`, ABI version 2 (plain C), written out in
//! Rust with the same layout. The header is the source of truth: where this file and it
//! differ, this file is wrong. Ownership, lifetimes and threads are as the header says: what
//! the entry points the descriptor at lives as long as the process; a string the host passes
//! is valid until the call returns; every call comes on the host's main thread.
#![allow(non_camel_case_types)]
use std::os::raw::{c_char, c_void};

pub const COORDSH_PLUGIN_MAGIC: u32 = 0x434F_4F52;
pub const COORDSH_PLUGIN_ABI_VERSION_C: u32 = 2;

pub const COORDSH_TYPE_INT: i32 = 1;
pub const COORDSH_TYPE_BOOL: i32 = 2;
pub const COORDSH_TYPE_STRING: i32 = 3;
pub const COORDSH_TYPE_ROUTE: i32 = 4;
pub const COORDSH_TYPE_DOUBLE: i32 = 5;

pub const COORDSH_SQL_NULL: i32 = 0;
pub const COORDSH_SQL_INTEGER: i32 = 1;
pub const COORDSH_SQL_REAL: i32 = 2;
pub const COORDSH_SQL_TEXT: i32 = 3;

#[repr(C)]
pub struct coordsh_plugin_descriptor {
    pub magic: u32,
    pub abi_version: u32,
    pub sdk_version: *const c_char,
    pub swift_version: *const c_char,
    pub name: *const c_char,
    pub version: *const c_char,
    pub plugin: *mut c_void,
    pub error: *const c_char,
    pub feature: *const coordsh_feature,
    /// `size_of::<coordsh_feature>()`: the host reads only the fields this covers.
    pub feature_size: u32,
}

#[repr(C)]
pub struct coordsh_param {
    pub name: *const c_char,
    pub r#type: i32,
    pub optional: i32,
    pub summary: *const c_char,
}

#[repr(C)]
pub struct coordsh_ctx {
    pub host: *const coordsh_host,
    pub host_private: *mut c_void,
}

pub type coordsh_render_fn = unsafe extern "C" fn(ctx: *mut coordsh_ctx) -> i32;
/// A handler: `unsafe extern "C" fn(*mut coordsh_ctx, <one parameter per argument>) -> i32`,
/// stored as an untyped function pointer; the host calls it through libffi.
pub type coordsh_handler_fn = unsafe extern "C" fn();

#[repr(C)]
pub struct coordsh_page {
    pub name: *const c_char,
    pub params: *const coordsh_param,
    pub param_count: i32,
    pub summary: *const c_char,
    pub render: Option<coordsh_render_fn>,
}

#[repr(C)]
pub struct coordsh_message {
    pub verb: *const c_char,
    pub params: *const coordsh_param,
    pub param_count: i32,
    pub summary: *const c_char,
    pub needs: *const *const c_char,
    pub need_count: i32,
    pub waiting: *const c_char,
    pub handler: Option<coordsh_handler_fn>,
}

#[repr(C)]
pub struct coordsh_feature {
    pub name: *const c_char,
    pub prefix: *const c_char,
    pub summary: *const c_char,
    pub pages: *const coordsh_page,
    pub page_count: i32,
    pub messages: *const coordsh_message,
    pub message_count: i32,
    pub uses: *const *const c_char,
    pub use_count: i32,
    pub migrations: *const *const c_char,
    pub migration_count: i32,
    /// Offers values for a parameter (Tab): `add_line` once per value. May be `None`.
    pub complete: Option<unsafe extern "C" fn(ctx: *mut coordsh_ctx, parameter: *const c_char) -> i32>,
}

#[repr(C)]
pub struct coordsh_value {
    pub r#type: i32,
    pub integer: i64,
    pub real: f64,
    pub text: *const c_char,
}

pub type coordsh_row_fn =
    unsafe extern "C" fn(user: *mut c_void, columns: i32, names: *const *const c_char, values: *const coordsh_value) -> i32;

#[repr(C)]
pub struct coordsh_host {
    pub size: u32,
    pub set_error: unsafe extern "C" fn(ctx: *mut coordsh_ctx, message: *const c_char),
    pub note: unsafe extern "C" fn(ctx: *mut coordsh_ctx, line: *const c_char),
    pub display: unsafe extern "C" fn(ctx: *mut coordsh_ctx, route: *const c_char) -> i32,
    pub send: unsafe extern "C" fn(
        ctx: *mut coordsh_ctx,
        message: *const c_char,
        count: i32,
        names: *const *const c_char,
        values: *const *const c_char,
    ) -> i32,
    pub arg_int: unsafe extern "C" fn(ctx: *mut coordsh_ctx, name: *const c_char, value: *mut i64) -> i32,
    pub arg_string: unsafe extern "C" fn(ctx: *mut coordsh_ctx, name: *const c_char) -> *const c_char,
    pub set_title: unsafe extern "C" fn(ctx: *mut coordsh_ctx, title: *const c_char),
    pub add_line: unsafe extern "C" fn(ctx: *mut coordsh_ctx, line: *const c_char),
    pub sql: unsafe extern "C" fn(
        ctx: *mut coordsh_ctx,
        sql: *const c_char,
        count: i32,
        values: *const coordsh_value,
        row: Option<coordsh_row_fn>,
        user: *mut c_void,
    ) -> i32,
    pub setting: unsafe extern "C" fn(ctx: *mut coordsh_ctx, key: *const c_char) -> *const c_char,
    pub login: unsafe extern "C" fn(ctx: *mut coordsh_ctx) -> *const c_char,
    pub arg_double: unsafe extern "C" fn(ctx: *mut coordsh_ctx, name: *const c_char, value: *mut f64) -> i32,
}

// ------------------------------------------------------------------------------------------
// Constructors for what every plugin writes the same way. They set nothing the header does not
// say and leave every optional field empty; set `uses`, `migrations`, `needs`, `complete`, …
// on the value they return where a feature has them.

use std::ffi::CStr;

impl coordsh_param {
    /// A parameter `name` of `kind` (`COORDSH_TYPE_…`); `optional` ones may be left out.
    pub const fn new(name: &'static CStr, kind: i32, optional: bool, summary: &'static CStr) -> Self {
        coordsh_param { name: name.as_ptr(), r#type: kind, optional: optional as i32, summary: summary.as_ptr() }
    }
}

impl coordsh_page {
    /// A page `name` with `params`, rendered by `render`.
    pub fn new(name: &'static CStr, params: &'static [coordsh_param], summary: &'static CStr, render: coordsh_render_fn) -> Self {
        coordsh_page {
            name: name.as_ptr(),
            params: params.as_ptr(),
            param_count: params.len() as i32,
            summary: summary.as_ptr(),
            render: Some(render),
        }
    }
}

impl coordsh_message {
    /// A message `verb` with `params`, handled by `handler`: the plugin's
    /// `unsafe extern "C" fn(*mut coordsh_ctx, <one parameter per argument>) -> i32`, cast to
    /// `coordsh_handler_fn` (the host calls it with the declared types through libffi).
    pub fn new(verb: &'static CStr, params: &'static [coordsh_param], summary: &'static CStr, handler: coordsh_handler_fn) -> Self {
        coordsh_message {
            verb: verb.as_ptr(),
            params: params.as_ptr(),
            param_count: params.len() as i32,
            summary: summary.as_ptr(),
            needs: std::ptr::null(),
            need_count: 0,
            waiting: std::ptr::null(),
            handler: Some(handler),
        }
    }
}

impl coordsh_feature {
    /// A feature `name` whose messages are `prefix` + verb, with its pages (at least one) and
    /// messages; no capabilities used, no migrations, no completion.
    pub fn new(
        name: &'static CStr,
        prefix: &'static CStr,
        summary: &'static CStr,
        pages: &'static [coordsh_page],
        messages: &'static [coordsh_message],
    ) -> Self {
        coordsh_feature {
            name: name.as_ptr(),
            prefix: prefix.as_ptr(),
            summary: summary.as_ptr(),
            pages: pages.as_ptr(),
            page_count: pages.len() as i32,
            messages: messages.as_ptr(),
            message_count: messages.len() as i32,
            uses: std::ptr::null(),
            use_count: 0,
            migrations: std::ptr::null(),
            migration_count: 0,
            complete: None,
        }
    }
}

/// Fills the descriptor the host handed the entry for a version 2 plugin: the magic, the ABI
/// version, the plugin's name and version, its feature and the feature's size. The feature
/// must live as long as the process (leak it: `Box::leak`). Returns 0, the entry's success.
///
/// # Safety
/// `descriptor` is the pointer the host passed to `coordsh_plugin_entry`.
pub unsafe fn describe(
    descriptor: *mut coordsh_plugin_descriptor,
    name: &'static CStr,
    version: &'static CStr,
    feature: &'static coordsh_feature,
) -> i32 {
    let d = &mut *descriptor;
    d.magic = COORDSH_PLUGIN_MAGIC;
    d.abi_version = COORDSH_PLUGIN_ABI_VERSION_C;
    d.name = name.as_ptr();
    d.version = version.as_ptr();
    d.feature = feature;
    d.feature_size = std::mem::size_of::<coordsh_feature>() as u32;
    0
}
