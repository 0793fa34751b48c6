//! The device count a sharding is used with: its own, else the caller's.

use crate::error::{ErrorKind, ShardingError};
use crate::sharding::HloSharding;

impl HloSharding {
    /// The device count to use the sharding with: the one it names
    /// ([`Self::num_devices`]), else `devices`. Where both name one they
    /// must agree: a tile assignment of 8 devices is not used on 4 (XLA's
    /// `HloSharding::Validate` refuses it too).
    ///
    /// ```
    /// use sharding_util::{ErrorKind, HloSharding};
    ///
    /// let tiled: HloSharding = "{devices=[2,2]<=[4]}".parse().unwrap();
    /// assert_eq!(tiled.device_count(None), Ok(4));
    /// assert_eq!(tiled.device_count(Some(4)), Ok(4));
    /// let error = tiled.device_count(Some(8)).unwrap_err();
    /// assert_eq!(error.kind(), ErrorKind::Mismatch);
    /// assert_eq!(
    ///     error.to_string(),
    ///     "{devices=[2,2]<=[4]} has 4 devices, not the 8 given"
    /// );
    /// let replicated: HloSharding = "{replicated}".parse().unwrap();
    /// assert_eq!(replicated.device_count(Some(8)), Ok(8));
    /// let error = replicated.device_count(None).unwrap_err();
    /// assert_eq!(error.kind(), ErrorKind::NoDeviceCount);
    /// assert_eq!(error.to_string(), "{replicated} names no device count");
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NoDeviceCount`] when neither names a count,
    /// [`ErrorKind::Mismatch`] when the two differ.
    pub fn device_count(&self, devices: Option<i64>) -> Result<i64, ShardingError> {
        match (self.num_devices(), devices) {
            (Some(own), Some(given)) if own != given => Err(ShardingError::new(
                ErrorKind::Mismatch,
                format!("{self} has {own} devices, not the {given} given"),
            )),
            (Some(n), _) | (None, Some(n)) => Ok(n),
            (None, None) => Err(ShardingError::new(
                ErrorKind::NoDeviceCount,
                format!("{self} names no device count"),
            )),
        }
    }
}
