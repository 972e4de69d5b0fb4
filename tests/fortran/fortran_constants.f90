! fortran_constants.f90 - the module's status and backend constants are the C
! header's: each status's string, asked of the library by the Fortran value,
! must be that status's string, and the value after the last must be unknown.
! SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
program fortran_constants
  use, intrinsic :: iso_c_binding, only: c_int
  use shardtab
  implicit none
  integer :: failures
  failures = 0
  call expect(SHARDTAB_SUCCESS, "success")
  call expect(SHARDTAB_ERR_INVALID_ARG, "invalid argument")
  call expect(SHARDTAB_ERR_NO_MEMORY, "out of memory")
  call expect(SHARDTAB_ERR_NO_DEVICE, "no usable device")
  call expect(SHARDTAB_ERR_DEVICE, "device runtime error")
  call expect(SHARDTAB_ERR_IPC, "IPC error")
  call expect(SHARDTAB_ERR_PEER_ACCESS, "peer access missing")
  call expect(SHARDTAB_ERR_DESCRIPTOR, "invalid peer descriptor")
  call expect(SHARDTAB_ERR_MPI, "MPI error")
  call expect(SHARDTAB_ERR_UNSUPPORTED, "not supported")
  call expect(SHARDTAB_ERR_VERIFY, "verification failed")
  call expect(SHARDTAB_ERR_TIMEOUT, "device wait timed out")
  call expect(SHARDTAB_ERR_ABORTED, "stopped after another rank failed")
  call expect(SHARDTAB_ERR_ABORTED + 1_c_int, "unknown status")  ! a status the module lacks
  if (shardtab_backend_name(SHARDTAB_BACKEND_HOST) /= "host" .or. &
      shardtab_backend_name(SHARDTAB_BACKEND_HIP) /= "hip" .or. &
      shardtab_backend_name(SHARDTAB_BACKEND_CUDA) /= "cuda") then
    print '(a)', "FAIL: backend names"
    failures = failures + 1
  end if
  if (failures == 0) then
    print '(a)', "PASS: the module's constants are the library's"
  else
    stop 1
  end if
contains
  subroutine expect(status, text)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: text
    if (shardtab_status_string(status) /= text) then
      print '(a,i0,5a)', "FAIL: status ", status, " is '", shardtab_status_string(status), &
        "' in the library, '", text, "' in the module"
      failures = failures + 1
    end if
  end subroutine
end program fortran_constants
