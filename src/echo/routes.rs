//! Which routes echo the request, and in which format (`--echo`): made once at start-up, read
//! by a connection only when its settings say some route echoes.

use super::EchoFormat;

/// The routes that echo the request, with their formats, by route index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EchoRoutes {
    echo: Vec<(u16, EchoFormat)>,
}

impl EchoRoutes {
    /// By route index, the format each route echoes in (`None`: it does not echo).
    pub fn new(formats: impl Iterator<Item = Option<EchoFormat>>) -> EchoRoutes {
        EchoRoutes {
            echo: (0..)
                .zip(formats)
                .filter_map(|(route, f)| Some((route, f?)))
                .collect(),
        }
    }

    /// The format route `route` echoes in, if it echoes.
    pub fn format(&self, route: usize) -> Option<EchoFormat> {
        let (_, f) = self.echo.iter().find(|(r, _)| usize::from(*r) == route)?;
        Some(*f)
    }

    /// Whether route `route` echoes the request.
    pub fn echoes(&self, route: usize) -> bool {
        self.format(route).is_some()
    }
}
