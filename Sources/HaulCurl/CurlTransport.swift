import HaulCore
