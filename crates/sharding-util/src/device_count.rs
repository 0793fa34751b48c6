//! The device count a sharding is used with: its own, else the caller's.

use crate::error::{ErrorKind, ShardingError};
use crate::sharding::HloSharding;

impl HloSharding {
    /// The device count to use the sharding with: the one it names
    /// ([`Self::num_devices`]), else `devices`. A count the sharding names
    /// wins over `devices`; validation ([`Self::validate`]) checks the two
    /// against the shape.
    ///
    /// ```
    /// use sharding_util::{ErrorKind, HloSharding};
    ///
    /// let tiled: HloSharding = "{devices=[2,2]<=[4]}".parse().unwrap();
    /// assert_eq!(tiled.device_count(None), Ok(4));
    /// let replicated: HloSharding = "{replicated}".parse().unwrap();
    /// assert_eq!(replicated.device_count(Some(8)), Ok(8));
    /// let error = replicated.device_count(None).unwrap_err();
    /// assert_eq!(error.kind(), ErrorKind::NoDeviceCount);
    /// assert_eq!(error.to_string(), "{replicated} names no device count");
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NoDeviceCount`] when neither names a count.
    pub fn device_count(&self, devices: Option<i64>) -> Result<i64, ShardingError> {
        self.num_devices().or(devices).ok_or_else(|| {
            ShardingError::new(
                ErrorKind::NoDeviceCount,
                format!("{self} names no device count"),
            )
        })
    }
}
